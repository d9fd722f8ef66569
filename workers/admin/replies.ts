/**
 * The assistant's fixed sentences about actions, in the admin's language. Confirming, rejecting
 * and "still pending" are decided by code, not by the model, so their wording is code too: the
 * admin reads exactly what happened, and never a claim that no action backs.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { Language } from "../tutor/language";

const quote = (language: Language, text: string) => (language === "es" ? `«${text}»` : `“${text}”`);
const time = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export const replies = {
  confirmed: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `Confirmado. Ejecutando ${quote(l, a.preview)} (${a.total} elementos). Verás el progreso aquí y te avisaré al terminar.`
      : `Confirmed. Running ${quote(l, a.preview)} (${a.total} items). Progress shows here and I will tell you when it is done.`,
  rejected: (l: Language, a: AdminActionRow) =>
    l === "es" ? `Cancelado: ${quote(l, a.preview)}. No se ha cambiado nada.` : `Cancelled: ${quote(l, a.preview)}. Nothing was changed.`,
  stillPending: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `No lo he entendido como un sí o un no, así que la acción sigue pendiente: ${quote(l, a.preview)}. Responde «sí» para ejecutarla o «no» para cancelarla.`
      : `I did not read that as a yes or a no, so the action is still pending: ${quote(l, a.preview)}. Reply “yes” to run it or “no” to cancel it.`,
  supersededPrefix: (l: Language) =>
    l === "es" ? "He cancelado la propuesta anterior (no se cambió nada).\n\n" : "I cancelled the previous proposal (nothing was changed).\n\n",
  pendingFooter: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `\n\nTodavía no se ha cambiado nada. Responde «sí» para ejecutarlo o «no» para cancelarlo (caduca el ${time(a.expires_at)}).`
      : `\n\nNothing has changed yet. Reply “yes” to run it or “no” to cancel it (expires ${time(a.expires_at)}).`,
  stillPendingFooter: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `\n\nRecuerda: ${quote(l, a.preview)} sigue pendiente. Responde «sí» o «no».`
      : `\n\nReminder: ${quote(l, a.preview)} is still pending. Reply “yes” or “no”.`,
  expired: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `La acción ${quote(l, a.preview)} caducó sin confirmarse y no se ejecutó. Pídemela de nuevo para preparar una propuesta actualizada.`
      : `The action ${quote(l, a.preview)} expired unconfirmed and did not run. Ask again and I will prepare a fresh proposal.`,
  alreadyDecided: (l: Language, a: AdminActionRow) =>
    l === "es"
      ? `La acción ${quote(l, a.preview)} ya está en estado «${a.status}»; no hay nada pendiente de confirmar.`
      : `The action ${quote(l, a.preview)} is already ${a.status}; there is nothing pending to confirm.`,
};

/** Splits fixed text into word-sized pieces, so it streams like a model's answer. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
