/**
 * Reading an admin's reply to a pending action. Words are matched whole (after folding case
 * and accents), never as substrings: "no" is not inside "nota", "ok" is not inside "book".
 * A reply that both confirms and rejects, or does neither, is ambiguous and keeps the action
 * pending; a reply that asks for something new ("wait, add María too", "sí, pero añade a Marta")
 * rejects it so the request can be planned again with the change.
 */
import { foldAccents } from "../../lib/language";
export type ReplyKind = "confirm" | "reject" | "new_request" | "ambiguous";

// Seed 000's lists, plus the everyday forms admins actually type.
const CONFIRM_WORDS = new Set([
  "yes",
  "si",
  "proceed",
  "dale",
  "ok",
  "okay",
  "confirmar",
  "confirmo",
  "confirm",
  "confirmed",
  "hazlo",
  "adelante",
  "yep",
  "yeah",
  "sure",
  "vale",
  "claro",
  "go",
]);
const CONFIRM_PHRASES = ["go ahead", "do it", "de acuerdo", "por supuesto", "sounds good"];
const REJECT_WORDS = new Set(["no", "cancel", "cancelar", "cancela", "wait", "espera", "stop", "para", "nope", "abort", "don't", "dont", "nah"]);
const REJECT_PHRASES = ["mejor no", "not now", "never mind"];

/** Verbs and words of a request: a reply carrying them is a new instruction, not an answer. */
const REQUEST_WORDS = new Set(
  (
    "add also instead change remove include exclude assign enroll enrol deactivate archive verify set list show who make only except plus but " +
    "anade agrega agregar incluye incluir tambien quita quitar excluye cambia cambiar asigna asignar inscribe desactiva archiva verifica pon lista muestra quien solo excepto ademas pero"
  ).split(" "),
);

function wordsOf(text: string): string[] {
  return foldAccents(text).match(/[\p{L}\p{N}']+/gu) ?? [];
}

function hasPhrase(folded: string, phrases: string[]): boolean {
  return phrases.some((phrase) => new RegExp(`(^|[^\\p{L}])${phrase}($|[^\\p{L}])`, "u").test(folded));
}

export function classifyReply(message: string): ReplyKind {
  const words = wordsOf(message);
  const folded = words.join(" ");
  const confirms = words.some((word) => CONFIRM_WORDS.has(word)) || hasPhrase(folded, CONFIRM_PHRASES);
  const rejects = words.some((word) => REJECT_WORDS.has(word)) || hasPhrase(folded, REJECT_PHRASES);
  if (words.some((word) => REQUEST_WORDS.has(word))) return "new_request";
  if (confirms && rejects) return "ambiguous";
  if (confirms) return "confirm";
  if (rejects) return "reject";
  return "ambiguous";
}
