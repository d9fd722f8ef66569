/**
 * Health topics a tutor must handle with care (seed 000: supportive, never a diagnosis, point to
 * HR or a professional), recognised by a small lexicon in every supported language. A real
 * model follows the prompt's rule (workers/tutor/prompts.ts); the offline model follows no
 * prompt, so it reads the question with this and answers with the catalog's supportive reply
 * (lib/messages.ts `sensitiveTopic`). Terms are kept narrow on purpose: "sick days" or a
 * forklift's "blind spot" are policy and safety questions, not someone's health.
 */
import { foldAccents } from "./language";
import { PACKS } from "./languages";

export type SensitiveTopic = "neurodivergence" | "mental_health" | "disability" | "medical";

/**
 * Word beginnings (accent-free, lower case) per category, every language pack's (lib/languages/);
 * a term with a space is matched as a phrase. A word matches when it starts with a term
 * ("diagnos" covers diagnose, diagnosis, diagnóstico, diagnostic, Diagnose). A question is read
 * against every language's terms: a health question often mixes the employee's language with
 * English terms.
 */
const LEXICON: Record<SensitiveTopic, string[]> = {
  neurodivergence: termsOf("neurodivergence"),
  mental_health: termsOf("mental_health"),
  disability: termsOf("disability"),
  medical: termsOf("medical"),
};

function termsOf(topic: SensitiveTopic): string[] {
  return [...new Set(PACKS.flatMap((pack) => pack.healthTerms[topic]))];
}

/** The categories in the order they are reported when a question touches several: the most specific first. */
const ORDER: SensitiveTopic[] = ["neurodivergence", "mental_health", "disability", "medical"];

/** The category of health topic a message touches, if any. */
export function sensitiveTopicOf(text: string): SensitiveTopic | undefined {
  const words = foldAccents(text).match(/[\p{L}\p{N}]+/gu) ?? [];
  const joined = ` ${words.join(" ")} `;
  return ORDER.find((topic) =>
    LEXICON[topic].some((term) => (term.includes(" ") ? joined.includes(` ${term} `) : words.some((word) => word.startsWith(term)))),
  );
}
