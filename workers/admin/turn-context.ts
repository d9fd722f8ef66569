/** Everything an admin turn needs to know, loaded by ids and re-checked: the caller must still be an active admin. */
import { findSessionInOrg } from "../../db/queries/chat-sessions";
import { findTurnMessage, listRecentMessagesBeforeTurn } from "../../db/queries/chat-messages";
import { findOrganisationName, findUser } from "../../db/queries/users";
import type { AdminTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import type { Language } from "../../lib/language";
import { detectLanguage, languageOf } from "../../lib/language-detection";
import { classifyReply } from "./confirmation";
import { HISTORY_WINDOW_TURNS, toTurns, type Turn } from "../turns/history";
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
  /** Earlier turns of the session, oldest first: the latest HISTORY_WINDOW_TURNS at most. */
  history: Turn[];
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
  // The latest turns only, limited in SQL: an admin session has no summary, and a long one must not load whole.
  const earlier = await listRecentMessagesBeforeTurn(db, payload.orgId, payload.sessionId, payload.turnId, HISTORY_WINDOW_TURNS * 2);
  const history = toTurns(earlier);
  return {
    orgId: payload.orgId,
    orgName: orgName ?? "your company",
    userId: payload.userId,
    adminName: user.name,
    sessionId: payload.sessionId,
    turnId: payload.turnId,
    message: message.content,
    messageStoredAt: message.created_at,
    language: adminLanguage(message.content, history, user.locale),
    history,
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
