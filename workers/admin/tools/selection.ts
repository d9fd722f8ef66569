/**
 * Which tools a turn's requests carry. Thirteen tools' JSON Schema is about 1,800 tokens in every
 * round, and a model offered a deactivation tool for a question about course completion
 * sometimes reaches for it; the reference designs send only the tools relevant to the message
 * (plus a few always). Here relevance is read from the words of the admin's message and of their
 * previous one (a follow-up names less), in every supported language, with no model call:
 *
 * - the core tools, which find people and courses, are always sent;
 * - a tool goes along when the message uses one of its topic's words (stems, accents ignored);
 * - a tool the conversation is already using stays: the one of an action awaiting the admin's
 *   answer, whatever the message says;
 * - a message that names none of the topics (a greeting, something unforeseen) gets every tool,
 *   so selection can narrow what the model sees but never leave it without the tool it needs.
 *
 * The set is chosen once per turn, so every round of the turn sees the same tools.
 */
import type { AdminToolName } from "../../../queues/events/contract";
import type { AdminTool } from "./tool";

/** Sent in every request: how the model finds the people and courses the admin names. */
export const CORE_TOOLS: readonly AdminToolName[] = ["list_employees", "get_employee_detail", "list_courses"];

const COURSES = [
  "course",
  "training",
  "lesson",
  "module",
  "curso",
  "formacion",
  "leccion",
  "cours",
  "formation",
  "lecon",
  "kurs",
  "schulung",
  "lektion",
  "corso",
  "corsi",
  "formazione",
  "lezion",
  "treinamento",
  "formacao",
  "licao",
];
const ASSIGNING = [
  "assign",
  "enrol",
  "sign up",
  "asign",
  "inscrib",
  "matricul",
  "inscri",
  "affect",
  "zuweis",
  "zuordn",
  "einschreib",
  "assegn",
  "iscriv",
  "atribu",
  "deadline",
  "plazo",
  "echeance",
  "frist",
  "scadenz",
  "prazo",
];
const ARCHIVING = ["archiv", "retire", "withdraw", "arquiv", "retirar", "retir", "ritir"];
const STATS = [
  "stat",
  "completion",
  "complete",
  "progress",
  "score",
  "rate",
  "fail",
  "overdue",
  "avance",
  "progreso",
  "nota",
  "tasa",
  "progres",
  "taux",
  "fortschritt",
  "abschluss",
  "quote",
  "progress",
  "punteggio",
  "progresso",
  "taxa",
];
const SKILLS = [
  "skill",
  "expert",
  "know",
  "level",
  "matrix",
  "gap",
  "competenc",
  "habilidad",
  "destreza",
  "nivel",
  "sabe",
  "brecha",
  "experto",
  "compet",
  "niveau",
  "savoir",
  "lacune",
  "fahigkeit",
  "kenntnis",
  "kompetenz",
  "stufe",
  "lucke",
  "abilit",
  "livello",
  "lacun",
  "conhec",
  "lacuna",
  "especialista",
  "esperto",
];
const VERIFYING = ["verif", "certif", "validat", "confirm level", "set level", "bestatig", "valid", "convalid"];
const MENTORING = ["mentor", "coach", "pair", "tutor", "apadrin", "parrain", "binome", "accoppi", "apadrinh"];
const ATTENTION = [
  "alert",
  "attention",
  "risk",
  "behind",
  "late",
  "overdue",
  "deadline",
  "atencion",
  "riesgo",
  "retras",
  "vencid",
  "plazo",
  "alerte",
  "risque",
  "retard",
  "echeance",
  "warnung",
  "risiko",
  "verzug",
  "uberfallig",
  "frist",
  "avvis",
  "rischio",
  "ritard",
  "scadenz",
  "alerta",
  "atras",
  "prazo",
];
const DEACTIVATING = [
  "deactivat",
  "disable",
  "offboard",
  "left the company",
  "leaving",
  "remove access",
  "revoke",
  "desactiv",
  "dar de baja",
  "de baja",
  "despid",
  "deaktiv",
  "sperr",
  "austritt",
  "disattiv",
  "licenzi",
  "desativ",
  "deslig",
  "quitte",
];

const TOPICS: Record<Exclude<AdminToolName, (typeof CORE_TOOLS)[number]>, readonly string[][]> = {
  get_course_stats: [COURSES, STATS],
  assign_course: [ASSIGNING],
  archive_course: [ARCHIVING],
  get_skills_matrix: [SKILLS],
  get_skill_gaps: [SKILLS],
  who_knows: [SKILLS, MENTORING],
  verify_skill: [VERIFYING, SKILLS],
  get_mentorship_suggestions: [MENTORING],
  get_alerts: [ATTENTION],
  deactivate_employee: [DEACTIVATING],
};

/** Lower case, accents and punctuation gone: "Formación," → "formacion". */
function plain(text: string): string {
  return ` ${text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")} `;
}

/** A stem matches at the start of a word ("archiv" in "archiving"); a phrase anywhere on word edges. */
function mentions(text: string, stem: string): boolean {
  return text.includes(` ${stem}`);
}

export interface ToolSelectionInput {
  message: string;
  /** The admin's previous message, when there is one. */
  previousMessage?: string | undefined;
  /** Tools the conversation is using and must keep: an action awaiting the admin's answer. */
  inUse?: readonly string[];
}

export function selectTools<T extends Pick<AdminTool, "name">>(tools: readonly T[], { message, previousMessage, inUse = [] }: ToolSelectionInput): T[] {
  const text = plain(`${message} ${previousMessage ?? ""}`);
  const relevant = new Set<string>(CORE_TOOLS);
  for (const tool of tools) {
    if (mentions(text, tool.name.replace(/_/g, " "))) relevant.add(tool.name);
    const topics: readonly (readonly string[])[] | undefined = (TOPICS as Partial<Record<string, readonly string[][]>>)[tool.name];
    if (topics?.some((stems) => stems.some((stem) => mentions(text, stem)))) relevant.add(tool.name);
  }
  const named = relevant.size > CORE_TOOLS.length;
  for (const name of inUse) relevant.add(name);
  if (!named) return [...tools];
  return tools.filter((tool) => relevant.has(tool.name));
}
