/** Follow-up prompts per intent, in the employee's language (lib/messages.ts; English where it has none). Heuristic: no model call. */
import type { Intent } from "./intent";
import type { Language } from "../../lib/language";
import { messagesFor } from "../../lib/messages";

export function suggestionsFor(intent: Intent, language: Language, hasCourse: boolean): string[] {
  const list = messagesFor(language).suggestions[intent === "in_course" && !hasCourse ? "cross_course" : intent];
  return list.slice(0, 3);
}
