/**
 * The assistant's fixed sentences about actions, in the admin's language. Confirming, rejecting
 * and "still pending" are decided by code, not by the model, so their wording is code too: the
 * admin reads exactly what happened, and never a claim that no action backs.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { Language } from "../../lib/language";
import type { TurnEmitter } from "../turns/turn-emitter";

const quote = (language: Language, text: string) => (language === "es" ? `«${text}»` : `“${text}”`);
const time = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The first labels, then how many more ("Ada (Sales): enrol; Bo (Sales): enrol and 3 more"). */
function firstOf(l: Language, labels: string[], total: number): string {
  const rest = total - labels.length;
  const more = rest > 0 ? (l === "es" ? ` y ${rest} más` : ` and ${rest} more`) : "";
  return `${labels.join("; ")}${more}`;
}

/** How a pending action is decided: the card's button, or a reply that is only a yes or only a no. */
const howToDecide = (l: Language) =>
  l === "es"
    ? "Para ejecutarla, pulsa el botón Confirm o responde solo «sí»; para cancelarla, responde «no»."
    : "To run it, press Confirm or reply with a plain “yes”; to cancel it, reply “no”.";

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
  confirmed: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `Confirmado. Ejecutando ${quote(l, a.preview)} (${a.total} elementos). Verás el progreso aquí y te avisaré al terminar.`
      : `Confirmed. Running ${quote(l, a.preview)} (${a.total} items). Progress shows here and I will tell you when it is done.`,
  rejected: (l: Language, a: AdminActionRow) =>
    l === "es" ? `Cancelado: ${quote(l, a.preview)}. No se ha cambiado nada.` : `Cancelled: ${quote(l, a.preview)}. Nothing was changed.`,
  // A reply that is neither a plain yes nor a plain no: nothing ran, and the proposal still waits.
  stillPending: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `No lo he entendido como un sí o un no claros, así que no se ha ejecutado nada y la acción sigue pendiente: ${quote(l, a.preview)}. ${howToDecide(l)}`
      : `I did not read that as a plain yes or no, so nothing has run and the action is still pending: ${quote(l, a.preview)}. ${howToDecide(l)}`,
  supersededPrefix: (l: Language) =>
    l === "es" ? "He cancelado la propuesta anterior (no se cambió nada).\n\n" : "I cancelled the previous proposal (nothing was changed).\n\n",
  // Quotes the frozen proposal, not the model's account of it: a "yes" confirms exactly what this line showed.
  pendingFooter: (l: Language, a: AdminActionRow, labels: string[]) =>
    l === "es"
      ? `\n\nTodavía no se ha cambiado nada. Propuesta: ${quote(l, a.preview)} — ${a.total} ${a.total === 1 ? "elemento" : "elementos"}: ${firstOf(l, labels, a.total)}. ` +
        `Responde «sí» para ejecutar exactamente esto o «no» para cancelarlo (caduca el ${time(a.expires_at)}).`
      : `\n\nNothing has changed yet. Proposed: ${quote(l, a.preview)} — ${a.total} ${a.total === 1 ? "item" : "items"}: ${firstOf(l, labels, a.total)}. ` +
        `Reply “yes” to run exactly this or “no” to cancel it (expires ${time(a.expires_at)}).`,
  notYetShown: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `Tu mensaje llegó antes de que te mostrara la propuesta, así que no la he ejecutado: ${quote(l, a.preview)} (${a.total} elementos). Responde «sí» para ejecutarla o «no» para cancelarla.`
      : `Your message arrived before I had shown you the proposal, so I did not run it: ${quote(l, a.preview)} (${a.total} items). Reply “yes” to run it or “no” to cancel it.`,
  // After the model answered a question about the proposal: the proposal was neither run nor cancelled.
  stillPendingFooter: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `\n\nNo se ha ejecutado nada: ${quote(l, a.preview)} sigue pendiente, esperando tu confirmación. ${howToDecide(l)}`
      : `\n\nNothing has run: ${quote(l, a.preview)} is still pending, waiting for your confirmation. ${howToDecide(l)}`,
  expired: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `La acción ${quote(l, a.preview)} caducó sin confirmarse y no se ejecutó. Pídemela de nuevo para preparar una propuesta actualizada.`
      : `The action ${quote(l, a.preview)} expired unconfirmed and did not run. Ask again and I will prepare a fresh proposal.`,
  // Told to the model (a tool result), not the admin: one proposal at a time per conversation.
  writeBlocked: (l: Language) =>
    l === "es"
      ? "Ya hay una acción esperando confirmación en esta conversación; pide al admin que la confirme o la cancele antes de proponer otra."
      : "An action is already waiting for confirmation in this conversation; ask the admin to confirm or cancel it before proposing another.",
  alreadyDecided: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `La acción ${quote(l, a.preview)} ya está en estado «${a.status}»; no hay nada pendiente de confirmar.`
      : `The action ${quote(l, a.preview)} is already ${a.status}; there is nothing pending to confirm.`,
};

/** Splits fixed text into word-sized pieces, so it streams like a model's answer. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Streams a fixed sentence as `token` events, piece by piece. */
export async function say(events: TurnEmitter, text: string): Promise<void> {
  for (const piece of pieces(text)) await events.emit("token", { content: piece });
}
