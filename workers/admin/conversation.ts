/**
 * What the model reads for an admin turn: the system prompt (the admin, the org, today's date for
 * the deadlines it computes, a proposal still waiting), the summary of the session's older turns,
 * its recent turns raw, then the admin's message. The tool loop fits it to the model's window.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { ChatMessage } from "../llm/client";
import { adminSystemPrompt } from "./prompts";
import type { AdminTurnContext } from "./turn-context";

/** Opens the summary's system message, as in the tutor's prompt. */
const SUMMARY_INTRO = "Summary of the earlier conversation:";

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
  if (turn.summary) messages.push({ role: "system", content: `${SUMMARY_INTRO} ${turn.summary}` });
  for (const past of turn.history) {
    messages.push({ role: "user", content: past.user });
    if (past.assistant) messages.push({ role: "assistant", content: past.assistant });
  }
  messages.push({ role: "user", content: turn.message });
  return messages;
}
