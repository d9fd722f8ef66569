/** Everything an admin turn needs to know, loaded by ids and re-checked: the caller must still be an active admin. */
import { findSessionInOrg } from "../../db/queries/chat-sessions";
import { countTurnsBeforeTurn, findTurnMessage, listRecentMessagesBeforeTurn } from "../../db/queries/chat-messages";
import { findOrganisationName, findUser } from "../../db/queries/users";
import type { AdminTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import type { Language } from "../../lib/language";
import { detectLanguage, languageOf } from "../../lib/language-detection";
import { classifyReply } from "./confirmation";
import { HISTORY_WINDOW_TURNS, rawWindow, toTurns, type Turn } from "../turns/history";
import { CallerRevokedError } from "../turns/caller-revoked";
import { TurnGoneError } from "../turns/turn-gone";

export interface AdminTurnContext {
  orgId: string;
  orgName: string;
  userId: string;
  adminName: string;
  sessionId: string;
  turnId: string;
  message: string;
  /** When the message was stored: a reply decides only proposals the admin had seen by then. */
  messageStoredAt: Date;
  language: Language;
  /**
   * Earlier turns the summary does not cover (the last RAW_TURNS at least), oldest first, raw.
   * The request is fitted to the model's window later (fit-request.ts), which may drop the oldest.
   */
  history: Turn[];
  /** The session's summary of the turns before `history`, refreshed by `chat-summarise`. */
  summary: string | null;
}

export async function loadAdminTurn(deps: WorkerDeps, payload: AdminTurnPayload): Promise<AdminTurnContext> {
  const { db } = deps;
  const [session, message, user, orgName] = await Promise.all([
    findSessionInOrg(db, payload.orgId, payload.sessionId),
    findTurnMessage(db, payload.orgId, payload.turnId, "user"),
    findUser(db, payload.orgId, payload.userId),
    findOrganisationName(db, payload.orgId),
  ]);
  if (!session || session.user_id !== payload.userId || session.agent_type !== "admin" || !message) {
    throw new TurnGoneError("admin turn");
  }
  // Demoted or deactivated while the turn waited: it must not run with admin tools.
  if (!user?.is_active) throw new CallerRevokedError("ACCOUNT_INACTIVE");
  if (user.role !== "admin") throw new CallerRevokedError("FORBIDDEN");
  // The latest turns only, limited in SQL, so a long session never loads whole; the summary carries the rest.
  const earlier = toTurns(await listRecentMessagesBeforeTurn(db, payload.orgId, payload.sessionId, payload.turnId, HISTORY_WINDOW_TURNS * 2));
  // Where the loaded turns sit in the session matters only against a summary's coverage.
  const totalTurns = session.summary ? await countTurnsBeforeTurn(db, payload.orgId, payload.sessionId, payload.turnId) : earlier.length;
  return {
    orgId: payload.orgId,
    orgName: orgName ?? "your company",
    userId: payload.userId,
    adminName: user.name,
    sessionId: payload.sessionId,
    turnId: payload.turnId,
    message: message.content,
    messageStoredAt: message.created_at,
    language: adminLanguage(message.content, earlier, user.locale),
    history: rawWindow(earlier, session.summary ? session.summary_turn_count : 0, totalTurns),
    summary: session.summary,
  };
}

/**
 * The language to answer an admin's message in: the message's own, else (too short to tell: "ok",
 * "vale") the language of their last questions, else their locale. A plain English yes or no
 * keeps the conversation's language: every language's action lines ask for "yes" or "no"
 * (lib/messages.ts), so a French admin who answers "yes" is still answered in French (a "sí" is
 * still answered in Spanish, whatever came before).
 */
export function adminLanguage(message: string, history: Turn[], locale: string | null): Language {
  const earlier = languageOf(
    history
      .slice(-3)
      .map((turn) => turn.user)
      .join("\n"),
  );
  const language = detectLanguage(message, earlier, locale);
  const kind = classifyReply(message);
  return earlier && language === "en" && (kind === "confirm" || kind === "reject") ? earlier : language;
}
