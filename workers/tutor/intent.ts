/**
 * Intent of one tutor turn. Obvious cases (greetings, thanks, progress questions, in the
 * catalog's languages: English, Spanish, French, German, Portuguese) are settled by heuristics without a model call; the rest by one short,
 * deterministic call. Anything the model answers outside the five labels is cross_course.
 */
import type { LlmClient } from "../llm/client";
import { normalise } from "./language";

import { INTENTS, type Intent } from "../../queues/payloads";
import { LABELS } from "../../lib/prompt-markers";

export { INTENTS, type Intent };

const GREETINGS = new Set([
  "hola",
  "hi",
  "hello",
  "hey",
  "buenas",
  "buenos dias",
  "buenas tardes",
  "buenas noches",
  "good morning",
  "good afternoon",
  "gracias",
  "muchas gracias",
  "thanks",
  "thank you",
  "thanks a lot",
  "adios",
  "bye",
  "goodbye",
  "hasta luego",
  "ok",
  "vale",
  "genial",
  "perfecto",
  "great",
  "bonjour",
  "salut",
  "bonsoir",
  "merci",
  "merci beaucoup",
  "au revoir",
  "hallo",
  "guten morgen",
  "guten tag",
  "guten abend",
  "danke",
  "danke schon",
  "vielen dank",
  "tschuss",
  "ola",
  "oi",
  "bom dia",
  "boa tarde",
  "boa noite",
  "obrigado",
  "obrigada",
  "muito obrigado",
  "muito obrigada",
  "tchau",
]);

// Deadlines only in the possessive: "the deadline to return an item" is a policy question.
const PROGRESS_PHRASES = [
  "mi progreso",
  "my progress",
  "mi nota",
  "mis notas",
  "my score",
  "my scores",
  "my grade",
  "my grades",
  "cuanto llevo",
  "como voy",
  "how am i doing",
  "mi fecha limite",
  "mis fechas limite",
  "my deadline",
  "my deadlines",
  "mis cursos",
  "my courses",
  "my enrollments",
  "repasos pendientes",
  "reviews due",
  "what should i review",
  "que deberia repasar",
  "mis habilidades",
  "my skills",
  "ma progression",
  "mes notes",
  "mes cours",
  "mes competences",
  "mein fortschritt",
  "meinen fortschritt",
  "meine noten",
  "meine kurse",
  "meine fristen",
  "o meu progresso",
  "meu progresso",
  "minhas notas",
  "meus cursos",
  "os meus cursos",
];

export interface IntentInput {
  message: string;
  courseTitle: string | null;
  lessonTitle: string | null;
}

/** The heuristic verdict, or null when the model has to decide. */
export function heuristicIntent(message: string): Intent | null {
  const text = normalise(message);
  if (GREETINGS.has(text) || GREETINGS.has(text.replace(/^(hola|hi|hello|hey|bonjour|salut|hallo|ola|oi) /, ""))) return "chitchat";
  if (PROGRESS_PHRASES.some((phrase) => ` ${text} `.includes(` ${phrase} `))) return "progress";
  return null;
}

export function classificationPrompt({ message, courseTitle, lessonTitle }: IntentInput): string {
  return [
    "You classify the intent of an employee's message to the tutor of a corporate learning platform.",
    "Choose exactly one label:",
    "- in_course: about the content of the course the employee is currently taking",
    "- cross_course: about company knowledge that may span several topics or documents",
    "- progress: about their own progress, scores, deadlines, skills or pending reviews",
    "- chitchat: greetings, thanks, small talk",
    "- off_topic: unrelated to work or learning (sports, politics, celebrities…)",
    "",
    `The employee is ${courseTitle ? "inside a course" : "not inside any course"}.`,
    `${LABELS.course}: ${courseTitle ?? "None"}`,
    `Current lesson: ${lessonTitle ?? "None"}`,
    "",
    `${LABELS.employeeMessage}: ${JSON.stringify(message)}`,
    "",
    "Reply with the label only.",
  ].join("\n");
}

/** The first label the reply names ("in_course", "Label: in_course", "off-topic", "In course"), else cross_course. */
export function parseIntent(reply: string): Intent {
  const words = `_${reply.toLowerCase().replace(/[^a-z]+/g, "_")}_`;
  let found: { intent: Intent; at: number } | undefined;
  for (const intent of INTENTS) {
    const at = words.indexOf(`_${intent}_`);
    if (at >= 0 && (!found || at < found.at)) found = { intent, at };
  }
  return found?.intent ?? "cross_course";
}

export async function classifyIntent(
  llm: LlmClient,
  input: IntentInput,
  call: { orgId: string; userId: string },
): Promise<{ intent: Intent; decidedBy: "heuristic" | "model" }> {
  const heuristic = heuristicIntent(input.message);
  if (heuristic) return { intent: heuristic, decidedBy: "heuristic" };
  const reply = await llm.chat({ useCase: "tutor", ...call }, [{ role: "user", content: classificationPrompt(input) }], { maxTokens: 20, temperature: 0 });
  return { intent: parseIntent(reply.content), decidedBy: "model" };
}
