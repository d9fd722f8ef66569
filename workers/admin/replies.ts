/**
 * The assistant's fixed sentences about actions, in the admin's language. Confirming, rejecting
 * and "still pending" are decided by code, not by the model, so their wording is code too: the
 * admin reads exactly what happened, and never a claim that no action backs. The sentences
 * themselves are in the catalog (lib/messages.ts), in English, Spanish, French, German and Portuguese.
 */
import type { AdminActionRow } from "../../db/queries/admin-actions";
import type { Language } from "../../lib/language";
import { type ActionFacts, messagesFor } from "../../lib/messages";
import type { TurnEmitter } from "../turns/turn-emitter";

/** The catalog's action lines for the admin's language (English where it has none), filled from the action's row. */
const lines = (l: Language) => messagesFor(l).action;
const facts = (a: AdminActionRow): ActionFacts => ({ preview: a.preview, total: a.total, status: a.status, expiresAt: a.expires_at });

/** The first labels, then how many more ("Ada (Sales): enrol; Bo (Sales): enrol and 3 more"). */
function firstOf(l: Language, labels: string[], total: number): string {
  const rest = total - labels.length;
  return `${labels.join("; ")}${rest > 0 ? lines(l).andMore(rest) : ""}`;
}

export const replies = {
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
