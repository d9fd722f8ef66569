/**
 * Assembles the message list for one answer: system prompt, the cached summary, the raw
 * recent turns and the current question with its sources, fitted to the model's window
 * without ever cutting the system prompt or the question.
 */
import { findSessionInOrg } from "../../db/queries/chat-sessions";
import { countTurnsBeforeTurn, listRecentMessagesBeforeTurn } from "../../db/queries/chat-messages";
import type { WorkerDeps } from "../deps";
import type { ChatMessage } from "../llm/client";
import { fitMessagesToContext } from "../llm/context-window";
import { countTokensRemembered, tokensAtMost } from "../llm/tokens";
import { HISTORY_WINDOW_TURNS, rawWindow, toTurns } from "../turns/history";
import { tutorSystemPrompt, tutorUserMessage } from "./prompts";
import { budgetsFor, tutorContextWindow, type TokenBudgets } from "./retrieval/budgets";
import type { RetrievalOutcome } from "./retrieval/types";
import type { TurnContext } from "./turn-context";

/** The tutor's budgets for this deployment: from LLM_CONTEXT_WINDOW, else the generation models' names. */
export function tutorBudgets(deps: Pick<WorkerDeps, "config" | "llm">): TokenBudgets & { window: number } {
  const window = tutorContextWindow(deps.config.llm.LLM_CONTEXT_WINDOW, deps.llm.modelChain("generation"));
  return { ...budgetsFor(window), window };
}

export async function buildTutorMessages(deps: WorkerDeps, turn: TurnContext, retrieval: RetrievalOutcome): Promise<ChatMessage[]> {
  const budgets = tutorBudgets(deps);
  const [session, earlier] = await Promise.all([
    findSessionInOrg(deps.db, turn.orgId, turn.sessionId),
    // Earlier turns only, never this turn's question: a replica a moment behind serves them (docs/operations.md).
    deps.reads.read((db) => listRecentMessagesBeforeTurn(db, turn.orgId, turn.sessionId, turn.turnId, HISTORY_WINDOW_TURNS * 2)),
  ]);
  const turns = toTurns(earlier);
  // Where the loaded turns sit in the session matters only against a summary's coverage.
  const totalTurns = session?.summary ? await deps.reads.read((db) => countTurnsBeforeTurn(db, turn.orgId, turn.sessionId, turn.turnId)) : turns.length;
  const messages: ChatMessage[] = [{ role: "system", content: tutorSystemPrompt({ ...turn, rung: retrieval.rung, intent: retrieval.intent }) }];
  if (session?.summary) {
    messages.push({ role: "system", content: `Summary of the earlier conversation: ${session.summary}` });
  }

  // Newest turns first until the history budget is spent, then back in order.
  const history: ChatMessage[] = [];
  const window = rawWindow(turns, session?.summary ? session.summary_turn_count : 0, totalTurns).reverse();
  // When the byte bound of the whole window fits, every turn does: no need to tokenise them.
  const fitsByBytes = window.reduce((sum, past) => sum + tokensAtMost(past.user) + tokensAtMost(past.assistant ?? "") + 8, 0) <= budgets.history;
  let spent = 0;
  for (const past of window) {
    const pair: ChatMessage[] = [{ role: "user", content: past.user }];
    if (past.assistant) pair.push({ role: "assistant", content: past.assistant });
    if (!fitsByBytes) {
      const cost = countTokensRemembered(past.user) + countTokensRemembered(past.assistant ?? "") + 8;
      if (spent + cost > budgets.history) break;
      spent += cost;
    }
    history.unshift(...pair);
  }
  messages.push(...history, { role: "user", content: tutorUserMessage(turn.question, retrieval.sources) });
  return fitMessagesToContext(messages as Array<ChatMessage & { role: string; content: string }>, budgets.window, budgets.generationReserve);
}
