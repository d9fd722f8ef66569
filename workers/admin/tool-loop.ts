/**
 * The tool-calling rounds of one admin turn. Each round streams the model's text as `token`
 * events and collects its tool calls; each call is announced (`tool_call`), run inside the
 * caller's org, and reported (`tool_result`) before its result goes back to the model. After
 * ADMIN_MAX_TOOL_ROUNDS the model must answer with what it has (tool_choice none). A cancelled
 * turn stops where it is: the stream is aborted, and no further round or tool call starts.
 *
 * Bounds, checked by code whatever the model asks: before every model call the organisation's
 * AI allowance is read, and a spent one ends the turn with the accept-time refusal
 * (AI_ALLOWANCE_EXHAUSTED), so no round runs past it; every request is fitted to the model's
 * context window (fit-request.ts); at most ADMIN_MAX_TOOL_CALLS_PER_ROUND calls of one reply run,
 * the rest are answered with the limit; a tool failing on a database blip is retried and, if it
 * keeps failing, switched off for a cool-down (tools/resilience.ts).
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { WorkerDeps } from "../deps";
import type { CancelWatch } from "../turns/turn-state";
import type { ChatMessage } from "../llm/client";
import { StreamCancelled } from "../llm/stream-watch";
import type { TurnEmitter } from "../turns/turn-emitter";
import { reasoningRelay } from "../turns/reasoning-relay";
import { allowanceState } from "../../db/queries/ai-allowance";
import { allowanceExhaustedRefusal } from "../../lib/refusal";
import { countTokens } from "../llm/tokens";
import { adminContextWindow, fitAdminRequest } from "./fit-request";
import { ADMIN_TEMPERATURE } from "./prompts";
import { ADMIN_TOOLS, runToolCall, type ToolGuard, type ToolRun } from "./tools";
import type { ToolBreaker } from "./tools/resilience";
import { toOpenAiTools, type AdminTool, type ToolContext } from "./tools/tool";
import { organisationPolicy } from "../../db/queries/organisation-policy";

export interface ToolLoopResult {
  text: string;
  runs: Array<ToolRun & { callId: string; round: number }>;
  rounds: number;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** The owner cancelled the turn: `text` is what had streamed by then. */
  cancelled: boolean;
}

export interface ToolLoopInput {
  deps: WorkerDeps;
  events: TurnEmitter;
  tools: ToolContext;
  messages: ChatMessage[];
  /** Text already streamed in this turn (e.g. "previous proposal cancelled"); the answer follows it. */
  prefix: string;
  /** Why a write must be refused in this turn (one proposal at a time), or null. */
  writeBlocked: () => string | null;
  /** The turn's cancel: aborts the stream and stops the loop between rounds and tool calls. */
  cancel?: CancelWatch;
  /** The tool breaker; the worker process's own unless a test brings one. */
  breaker?: ToolBreaker;
  /** The tools this turn's requests carry (tools/selection.ts); every tool when unset. */
  offered?: readonly AdminTool[];
}

/** Each offered set's `tools` field and what its JSON Schema costs in every request: built and counted once per set. */
const toolSets = new Map<string, { openAi: ChatCompletionTool[]; tokens: number }>();
function toolSetOf(offered: readonly AdminTool[]): { openAi: ChatCompletionTool[]; tokens: number } {
  const key = offered.map((tool) => tool.name).join(",");
  let set = toolSets.get(key);
  if (!set) {
    const openAi = toOpenAiTools(offered);
    set = { openAi, tokens: countTokens(JSON.stringify(openAi)) };
    toolSets.set(key, set);
  }
  return set;
}
/** The reply's share of the window (the request's max_tokens). */
const REPLY_TOKENS = 1_500;

/** The answer to a call past the round's limit: it is not run, and the model is told why. */
export const callLimitResult = (limit: number): string =>
  `Not run: at most ${limit} tool calls are run per step. Use the results you have, or ask for the rest in a next step with fewer calls.`;

function parsedArguments(raw: string): unknown {
  try {
    return JSON.parse(raw || "{}");
  } catch {
    return raw;
  }
}

/** Throws the allowance refusal when the organisation has nothing left: the turn must not call the model again. */
async function requireAllowance(deps: WorkerDeps, orgId: string): Promise<void> {
  const state = await allowanceState(deps.db, orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG);
  if (state.exhausted) throw allowanceExhaustedRefusal(state.resetsAt, "mid_turn");
}

export async function runToolLoop({ deps, events, tools, messages, prefix, writeBlocked, cancel, breaker, offered }: ToolLoopInput): Promise<ToolLoopResult> {
  const { config } = deps;
  const { openAi: OPENAI_TOOLS, tokens: TOOLS_TOKENS } = toolSetOf(offered ?? ADMIN_TOOLS);
  // The organisation's own bounds (its policy; defaults ADMIN_MAX_TOOL_ROUNDS and ADMIN_MAX_TOOL_CALLS_PER_ROUND).
  const policy = await organisationPolicy(deps.db, config, tools.orgId);
  const maxRounds = policy.admin_tool_rounds;
  const maxCalls = policy.admin_tool_calls_per_round;
  const guard: ToolGuard = {
    settings: {
      retries: config.admin.ADMIN_TOOL_RETRIES,
      baseDelayMs: config.admin.ADMIN_TOOL_RETRY_BASE_MS,
      breakerFailures: config.admin.ADMIN_TOOL_BREAKER_FAILURES,
      breakerCooldownMs: config.admin.ADMIN_TOOL_BREAKER_COOLDOWN_MS,
    },
    ...(breaker ? { breaker } : {}),
  };
  // The admin's message is the last one given; what follows it is this turn's rounds.
  const currentIndex = messages.length - 1;
  const window = adminContextWindow(config.llm.LLM_CONTEXT_WINDOW, deps.llm.modelChain("admin"));
  const runs: ToolLoopResult["runs"] = [];
  let text = prefix;
  let promptTokens = 0;
  let completionTokens = 0;
  let model = "";
  let rounds = 0;
  let cancelled = false;
  // A reasoning model's thinking is shown apart from the answer and never kept (nor sent back in the next round).
  const thinking = reasoningRelay(events);
  for (let round = 1; round <= maxRounds + 1; round++) {
    if (await cancel?.check()) {
      cancelled = true;
      break;
    }
    rounds = round;
    const lastChance = round > maxRounds;
    let separator = text.length > 0 && !text.endsWith("\n") ? "\n\n" : "";
    await requireAllowance(deps, tools.orgId);
    const fit = fitAdminRequest({ messages, currentIndex, window, reserve: REPLY_TOKENS, toolsTokens: TOOLS_TOKENS });
    if (fit.elidedResults + fit.droppedTurns + fit.cutResults > 0) {
      const { elidedResults, droppedTurns, cutResults } = fit;
      deps.log.info({ round, window, fittedTokens: fit.promptTokens, elidedResults, droppedTurns, cutResults }, "admin request fitted to the context window");
    }
    let result;
    thinking.nextCall();
    try {
      result = await deps.llm.stream(
        { useCase: "admin", orgId: tools.orgId, userId: tools.userId },
        fit.messages,
        {
          temperature: ADMIN_TEMPERATURE,
          maxTokens: REPLY_TOKENS,
          tools: OPENAI_TOOLS,
          ...(lastChance ? { toolChoice: "none" as const } : {}),
          ...(cancel ? { signal: cancel.signal } : {}),
          onReasoning: thinking.onReasoning,
        },
        async (piece) => {
          const content = separator + piece;
          separator = "";
          text += content;
          await events.emit("token", { content });
        },
      );
    } catch (error) {
      if (!(error instanceof StreamCancelled)) throw error;
      cancelled = true;
      break;
    }
    model = result.model;
    promptTokens += result.promptTokens;
    completionTokens += result.completionTokens;
    if (lastChance || result.toolCalls.length === 0) break;

    messages.push({
      role: "assistant",
      content: result.content || null,
      tool_calls: result.toolCalls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } })),
    } satisfies ChatCompletionMessageParam);
    for (const [index, call] of result.toolCalls.entries()) {
      // A cancel between tool calls: the rest are not run (a write would leave a proposal behind).
      if (cancel?.cancelled) break;
      await events.emit("tool_call", { callId: call.id, tool: call.name, arguments: parsedArguments(call.arguments), round });
      const kind = ADMIN_TOOLS.find((tool) => tool.name === call.name)?.kind;
      // Every call gets a result (the model's request must pair each call with one), but only the first maxCalls run.
      const blocked = index >= maxCalls ? callLimitResult(maxCalls) : kind === "write" ? writeBlocked() : null;
      const run: ToolRun = blocked
        ? {
            tool: call.name,
            arguments: parsedArguments(call.arguments),
            ok: false,
            json: JSON.stringify({ error: blocked }),
            truncated: false,
            ms: 0,
            error: blocked,
          }
        : await runToolCall(tools, call, guard);
      runs.push({ ...run, callId: call.id, round });
      await events.emit("tool_result", {
        callId: call.id,
        tool: call.name,
        ok: run.ok,
        resultBytes: Buffer.byteLength(run.json),
        ms: run.ms,
        ...(run.error ? { error: run.error } : {}),
        ...(run.truncated ? { truncated: true } : {}),
        ...(run.actionId ? { actionId: run.actionId } : {}),
      });
      messages.push({ role: "tool", tool_call_id: call.id, content: run.json });
    }
  }
  return { text, runs, rounds, model, promptTokens, completionTokens, cancelled };
}
