/**
 * What the model reads for an admin turn: the system prompt (the admin, the org, today's date for
 * the deadlines it computes, a proposal still waiting) and the session's recent turns, then the
 * admin's message.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { ChatMessage } from "../llm/client";
import { adminSystemPrompt } from "./prompts";
import type { AdminTurnContext } from "./turn-context";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Today as the tools and the prompt see it (the UTC date). */
export const todayOf = (now: Date): string => now.toISOString().slice(0, 10);

export function adminConversation(turn: AdminTurnContext, now: Date, stillPending: AdminActionRow | undefined): ChatMessage[] {
  const system = adminSystemPrompt({
    orgName: turn.orgName,
    adminName: turn.adminName,
    language: turn.language,
    today: todayOf(now),
    weekday: WEEKDAYS[now.getUTCDay()]!,
    pendingPreview: stillPending?.preview,
  });
  const messages: ChatMessage[] = [{ role: "system", content: system }];
  for (const past of turn.history) {
    messages.push({ role: "user", content: past.user });
    if (past.assistant) messages.push({ role: "assistant", content: past.assistant });
  }
  messages.push({ role: "user", content: turn.message });
  return messages;
}
