/**
 * The assistant's fixed sentences about actions, in the admin's language. Confirming, rejecting
 * and "still pending" are decided by code, not by the model, so their wording is code too: the
 * admin reads exactly what happened, and never a claim that no action backs. The sentences
 * themselves are in the catalog (lib/messages.ts), in English, Spanish, French, German and Portuguese.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { Language } from "../../lib/language";
import { messagesFor } from "../../lib/messages";
import type { ActionFacts } from "../../lib/messages/action-lines";
import type { TurnEmitter } from "../turns/turn-emitter";

/** The catalog's action lines for the admin's language (English where it has none), filled from the action's row. */
const lines = (l: Language) => messagesFor(l).action;
const facts = (a: AdminActionRow): ActionFacts => ({ preview: a.preview, total: a.total, status: a.status, expiresAt: a.expires_at });

/** The first labels, then how many more ("Ada (Sales): enrol; Bo (Sales): enrol and 3 more"). */
function firstOf(l: Language, labels: string[], total: number): string {
  const rest = total - labels.length;
  return `${labels.join("; ")}${rest > 0 ? lines(l).andMore(rest) : ""}`;
}

// The stop lines (issue 34 point 2) are in Spanish and English, the languages a stop typed in the chat is read in; other languages get English.
const quote = (l: Language, text: string) => (l === "es" ? `«${text}»` : `“${text}”`);
const count = (l: Language, n: number) => n.toLocaleString(l === "es" ? "es-ES" : "en-US");

/**
 * Exactly what a stop left: "Stopped after 340 of 2,000: 340 done, 1,660 not run." (failures
 * counted when there were any). The action card writes the same sentence from the same counts.
 */
function stopSummary(l: Language, a: AdminActionRow, notRun: number): string {
  const ran = a.done + a.failed;
  const failed = a.failed > 0 ? (l === "es" ? `, ${count(l, a.failed)} con error` : `, ${count(l, a.failed)} failed`) : "";
  return l === "es"
    ? `Detenida tras ${count(l, ran)} de ${count(l, a.total)}: ${count(l, a.done)} hechos${failed}, ${count(l, notRun)} sin ejecutar.`
    : `Stopped after ${count(l, ran)} of ${count(l, a.total)}: ${count(l, a.done)} done${failed}, ${count(l, notRun)} not run.`;
}

export const replies = {
  // A stop typed in the chat: the counts are final (the stop waited for the item in flight).
  stopped: (l: Language, a: AdminActionRow, notRun: number) =>
    l === "es"
      ? `${stopSummary(l, a, notRun)} ${quote(l, a.preview)}: lo hecho se mantiene; para ejecutar el resto, pulsa Resume en la tarjeta.`
      : `${stopSummary(l, a, notRun)} ${quote(l, a.preview)}: what is done stays done; to run the rest, press Resume on the card.`,
  // A stop that found nothing left to run, or nothing running at all. A stopped one (from the card,
  // or by this very message on an earlier attempt of its turn) is told with the stop's own counts.
  notRunning: (l: Language, a: AdminActionRow, notRun?: number) =>
    a.status === "stopped" && notRun !== undefined
      ? l === "es"
        ? `La acción ${quote(l, a.preview)} ya no se está ejecutando; no había nada que detener. ${stopSummary(l, a, notRun)}`
        : `The action ${quote(l, a.preview)} is not running; there was nothing to stop. ${stopSummary(l, a, notRun)}`
      : l === "es"
        ? `La acción ${quote(l, a.preview)} no se está ejecutando (estado «${a.status}»: ${count(l, a.done)} de ${count(l, a.total)} hechos); no había nada que detener.`
        : `The action ${quote(l, a.preview)} is not running (it is ${a.status}: ${count(l, a.done)} of ${count(l, a.total)} done); there was nothing to stop.`,
  confirmed: (l: Language, a: AdminActionRow) => lines(l).confirmed(facts(a)),
  rejected: (l: Language, a: AdminActionRow) => lines(l).rejected(facts(a)),
  // A reply that is neither a plain yes nor a plain no: nothing ran, and the proposal still waits.
  stillPending: (l: Language, a: AdminActionRow) => lines(l).stillPending(facts(a)),
  supersededPrefix: (l: Language) => lines(l).supersededPrefix,
  // Quotes the frozen proposal, not the model's account of it: a "yes" confirms exactly what this line showed.
  pendingFooter: (l: Language, a: AdminActionRow, labels: string[]) => lines(l).pendingFooter(facts(a), firstOf(l, labels, a.total)),
  notYetShown: (l: Language, a: AdminActionRow) => lines(l).notYetShown(facts(a)),
  // After the model answered a question about the proposal: the proposal was neither run nor cancelled.
  stillPendingFooter: (l: Language, a: AdminActionRow) => lines(l).stillPendingFooter(facts(a)),
  expired: (l: Language, a: AdminActionRow) => lines(l).expired(facts(a)),
  // Told to the model (a tool result), not the admin: one proposal at a time per conversation.
  writeBlocked: (l: Language) => lines(l).writeBlocked,
  alreadyDecided: (l: Language, a: AdminActionRow) => lines(l).alreadyDecided(facts(a)),
};

/** Splits fixed text into word-sized pieces, so it streams like a model's answer. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Streams a fixed sentence as `token` events, piece by piece. */
export async function say(events: TurnEmitter, text: string): Promise<void> {
  for (const piece of pieces(text)) await events.emit("token", { content: piece });
}
