/**
 * Health topics a tutor must handle with care (seed 000: supportive, never a diagnosis, point to
 * HR or a professional), recognised by a small lexicon in the catalog's five languages. A real
 * model follows the prompt's rule (workers/tutor/prompts.ts); the offline model follows no
 * prompt, so it reads the question with this and answers with the catalog's supportive reply
 * (lib/messages.ts `sensitiveTopic`). Terms are kept narrow on purpose: "sick days" or a
 * forklift's "blind spot" are policy and safety questions, not someone's health.
 */
import { foldAccents } from "./language";

export type SensitiveTopic = "neurodivergence" | "mental_health" | "disability" | "medical";

/**
 * Word beginnings (accent-free, lower case) per category; a term with a space is matched as a
 * phrase. A word matches when it starts with a term ("diagnos" covers diagnose, diagnosis,
 * diagnóstico, diagnostic, Diagnose).
 */
const LEXICON: Record<SensitiveTopic, string[]> = {
  neurodivergence: [
    "adhd",
    "adhs",
    "tdah",
    "tdha",
    "autis",
    "asperger",
    "dyslex",
    "dislex",
    "legasthen",
    "dyspra",
    "dispra",
    "dyscalc",
    "discalc",
    "neurodiver",
    "neurodiv",
    "tourette",
  ],
  mental_health: [
    "depressi",
    "depressed",
    "depresion",
    "depressao",
    "anxiety",
    "ansiedad",
    "anxiete",
    "angststorung",
    "burnout",
    "burn out",
    "bipolar",
    "ptsd",
    "suicid",
    "mental health",
    "salud mental",
    "sante mentale",
    "saude mental",
    "psychische gesundheit",
    "panic attack",
    "ataque de panico",
    "ataques de panico",
    "crise de panique",
  ],
  disability: [
    "disabilit",
    "discapacid",
    "discapacit",
    "handicap",
    "behinderung",
    "behindert",
    "deficiencia",
    "wheelchair",
    "rollstuhl",
    "silla de ruedas",
    "fauteuil roulant",
    "cadeira de rodas",
  ],
  medical: [
    "diagnos",
    "symptom",
    "sintoma",
    "medication",
    "medicament",
    "medikament",
    "medicamento",
    "illness",
    "enfermedad",
    "maladie",
    "krankheit",
    "doenca",
    "chronic",
    "cronic",
    "chroniq",
    "chronisch",
    "epilep",
    "diabet",
    "cancer",
    "krebs",
  ],
};

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
