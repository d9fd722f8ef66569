/**
 * The offline model's "utility" tasks — intent routing, PageIndex module selection, conversation
 * summaries and JSON outputs. Each is recognised by a stable phrase in the app's prompts and
 * answered with a heuristic, so every pipeline stage still runs (deterministically) without an LLM.
 */
import { argumentsFromSchema } from "./offline-tools";
import type { JsonSchema } from "./responder";
import { foldAccents } from "../lib/language";
import { detectLanguage } from "../lib/language-detection";
import { INTENT_LABELS, LABELS, MODULE_LABEL, MODULE_SELECTION_TASK, SUMMARY_TASK } from "../lib/prompt-markers";
import { isGreeting, sharedStems, splitSentences, stemSet } from "./text";

/** The rest of the line after `Label:` (or the next non-empty line when it is empty). */
export function lineValue(text: string, label: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const pattern = new RegExp(`^\\s*${label}\\s*:\\s*(.*)$`, "i");
  const index = lines.findIndex((line) => pattern.test(line));
  if (index < 0) return undefined;
  const value = (pattern.exec(lines[index] ?? "")?.[1] ?? "").trim();
  if (value !== "") return value;
  return lines
    .slice(index + 1)
    .find((line) => line.trim() !== "")
    ?.trim();
}

export function isIntentPrompt(text: string): boolean {
  const lower = text.toLowerCase();
  return INTENT_LABELS.every((label) => lower.includes(label));
}

// A deadline is the employee's own only when it is theirs or their course's: "the deadline for reporting a near miss" is a policy question.
const DEADLINE = "(?:deadlines?|due dates?|fechas? limites?)";
const PROGRESS = new RegExp(
  `\\b(progress|progreso|avance|(?:my|mis|mi) ${DEADLINE}|${DEADLINE} (?:of|for|del|de) (?:the |my |mi |el )?(?:course|curso)s?|scores?|grades?|notas?|calificacion(es)?|my courses|mis cursos|how am i doing|como voy)\\b`,
);
const OFF_TOPIC =
  /\b(football|soccer|futbol|nba|basketball|baloncesto|tennis|sports?|deportes?|match|partido|politics?|politica|election|elecciones|president|presidente|weather|clima|rain|lluvia|forecast|celebrity|celebrities|famosos?|actor|actriz|singer|cantante|movie|pelicula|recipe|receta|cook|cocinar|horoscope|horoscopo)\b/;
/** An outline line of the module-selection prompt: `- Module 2: Title — summary` (or Spanish `Módulo`). */
const MODULE_LINE = new RegExp(`^\\s*[-*•]?\\s*(?:${MODULE_LABEL}|m[oó]dulo)\\s+(\\d+)\\s*[:.)—–-]\\s*(.*)$`, "gimu");
/** One employee (or admin) line of a summary transcript. */
const EMPLOYEE_TURN = new RegExp(`^\\s*(?:${LABELS.employeeTurn}|${LABELS.adminTurn}|empleado|user|usuario)\\s*:\\s*(.+)$`, "gim");
const NO_COURSE = /^(none|null|n\/a|-|ninguno|ninguna|no)?$/i;

/** One of `in_course | cross_course | progress | chitchat | off_topic`, from the employee's message. */
export function classifyIntent(prompt: string, fallbackMessage: string): string {
  const message = lineValue(prompt, LABELS.employeeMessage) ?? fallbackMessage;
  const folded = foldAccents(message);
  if (isGreeting(message)) return "chitchat";
  if (PROGRESS.test(folded)) return "progress";
  const course = lineValue(prompt, LABELS.course);
  if (course !== undefined && !NO_COURSE.test(course.replace(/[."']/g, "").trim())) return "in_course";
  if (OFF_TOPIC.test(folded)) return "off_topic";
  return "cross_course";
}

export function isModuleSelectionPrompt(text: string): boolean {
  return text.toLowerCase().includes(MODULE_SELECTION_TASK.toLowerCase());
}

/** Numbers of the modules sharing the most words with the question, or `all` when none share any. */
export function selectModules(prompt: string): string {
  const question = stemSet(lineValue(prompt, LABELS.question) ?? lineValue(prompt, "Pregunta") ?? "");
  let bestScore = 0;
  let best: number[] = [];
  for (const match of prompt.matchAll(MODULE_LINE)) {
    const score = sharedStems(question, stemSet(match[2] ?? ""));
    if (score === 0 || score < bestScore) continue;
    if (score > bestScore) best = [];
    bestScore = score;
    best.push(Number(match[1]));
  }
  return best.length > 0 ? [...new Set(best)].sort((a, b) => a - b).join(", ") : "all";
}

/** The product's wording, plus the British spelling and Spanish a hand-written prompt may use. */
const SUMMARY_TASKS = [SUMMARY_TASK, "summarise the conversation", "resume la conversación", "resume la conversacion"].map((task) => task.toLowerCase());

export function isSummaryPrompt(text: string): boolean {
  const lower = text.toLowerCase();
  return SUMMARY_TASKS.some((task) => lower.includes(task));
}

/** An admin session's transcript (workers/turns/history.ts SPEAKERS.admin): its summary names the admin, not an employee. */
const ADMIN_TRANSCRIPT = new RegExp(`^\\s*${LABELS.adminTurn}\\s*:`, "m");

/** 2–3 sentences from the first sentence of each employee (or admin) turn. */
export function summariseConversation(prompt: string): string {
  const turns = [...prompt.matchAll(EMPLOYEE_TURN)].map((match) => match[1] ?? "");
  const firsts = turns.map((turn) => splitSentences(turn)[0] ?? turn.trim()).filter((sentence) => sentence !== "");
  const spanish = detectLanguage(firsts.join(" ") || prompt) === "es";
  const admin = ADMIN_TRANSCRIPT.test(prompt);
  const who = admin ? (spanish ? "El administrador" : "The admin") : spanish ? "El empleado" : "The employee";
  const end = (sentence: string) => (/[.!?…]$/.test(sentence) ? sentence : `${sentence}.`);
  if (firsts.length === 0) {
    return spanish ? `${who} aún no ha hecho preguntas. No hay nada que resumir.` : `${who} has not asked anything yet. There is nothing to summarise.`;
  }
  const [first, ...rest] = firsts;
  const sentences = [spanish ? `${who} preguntó: ${end(first ?? "")}` : `${who} asked: ${end(first ?? "")}`];
  for (const sentence of rest.slice(-2)) sentences.push(spanish ? `Después preguntó: ${end(sentence)}` : `Then they asked: ${end(sentence)}`);
  if (sentences.length === 1) {
    const answered = admin
      ? spanish
        ? "El asistente respondió con los datos de la plataforma."
        : "The assistant answered from the platform's data."
      : spanish
        ? "El tutor respondió con el material del curso."
        : "The tutor answered using the course material.";
    sentences.push(answered);
  }
  return sentences.join(" ");
}

export function wantsJson(text: string, responseFormatType: string | undefined): boolean {
  return responseFormatType === "json_object" || responseFormatType === "json_schema" || /respond with json|responde con json/i.test(text);
}

/**
 * A JSON object for prompts that ask for one: the keys named by a `JSON keys:` line (or a
 * `json_schema`), each valued from a `key: value` line in the prompt, else the answer for
 * answer-like keys, else the material sentence that best matches the key, else the next unused
 * material sentence; with no keys, `{"answer": …}`. `material` is ordered most relevant first.
 */
export function jsonReply(prompt: string, answer: string, material: string[], schema?: JsonSchema): string {
  const keysLine = lineValue(prompt, "JSON keys");
  const keys = keysLine
    ? keysLine
        .split(",")
        .map((key) => key.trim().replace(/^[`"']|[`"']$/g, ""))
        .filter(Boolean)
    : [];
  if (keys.length === 0 && schema?.properties) {
    const filled = argumentsFromSchema({ ...schema, required: Object.keys(schema.properties) }, material[0] ?? answer);
    return JSON.stringify({ ...filled, ...("answer" in schema.properties ? { answer } : {}) });
  }
  if (keys.length === 0) return JSON.stringify({ answer });
  const unused = [...material];
  const result: Record<string, string> = {};
  for (const key of keys) {
    const fromLine = lineValue(prompt, key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    if (fromLine !== undefined) {
      result[key] = fromLine;
      continue;
    }
    if (/answer|respuesta/i.test(key)) {
      result[key] = answer;
      continue;
    }
    const keyStems = stemSet(key.replace(/[_-]+/g, " "));
    const best = unused.map((sentence) => ({ sentence, score: sharedStems(keyStems, stemSet(sentence)) })).sort((a, b) => b.score - a.score)[0];
    const value = best && best.score > 0 ? best.sentence : (unused[0] ?? material[0] ?? answer);
    unused.splice(unused.indexOf(value), unused.includes(value) ? 1 : 0);
    result[key] = value;
  }
  return JSON.stringify(result);
}
