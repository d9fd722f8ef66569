/**
 * Starting a chat turn (tutor or admin assistant): store the user's message (creating the
 * session on first use), then enqueue the turn once the transaction has committed, so no job
 * ever points at a row that does not exist. If the queue refuses, the rows this command created
 * are removed again and it fails with QUEUE_UNAVAILABLE for the caller to retry; nothing stored
 * earlier is touched. What the turn may see (the tutor's course and lesson) is decided by the
 * caller before this runs.
 */
import { randomUUID } from "node:crypto";
import { deleteMessage } from "../db/queries/chat-messages";
import { storeAdminQuestion, storeQuestion, type QuestionValues, type StoredQuestion } from "../db/queries/chat-questions";
import { deleteOwnedSession } from "../db/queries/chat-session-writes";
import type { Owner } from "../db/queries/chat-sessions";
import { addToLogContext } from "../lib/logger";
import type { CommandDeps } from "./deps";
import { Refusal } from "../lib/refusal";
import { withTransaction } from "./transaction";
import { checkAttachments } from "./turn-attachments";
import { linkAttachments, lockSendableAttachments } from "../db/queries/chat-attachment-writes";

export interface StartTurnDeps extends CommandDeps {
  /** Counts the accepted turn (the server's /metrics). */
  metrics: { turnAccepted(turnId: string): void };
}

export type TurnStart =
  | {
      agentType: "tutor";
      message: string;
      sessionId: string | undefined;
      /** Where the turn is asked, already checked against what the learner may use. */
      courseId: string | null;
      lessonId: string | null;
      /** Stored with the question as the request sent it. */
      requestContext: Record<string, unknown>;
      /** Files already attached to the session (ready, not yet sent) that go with this question. */
      attachmentIds?: string[];
    }
  | { agentType: "admin"; message: string; sessionId: string | undefined };

export interface StartedTurn {
  session_id: string;
  turn_id: string;
  message_id: string;
}

const TITLE_CHARS = 80;

function titleFrom(message: string): string {
  const flat = message.replace(/\s+/g, " ").trim();
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * A tutor question with files: the files are locked, checked, and tied to the question in the
 * transaction that stores it, so two questions sending the same file at once cannot both take it —
 * the second is refused (409 ATTACHMENT_ALREADY_SENT) and stores nothing.
 */
async function storeWithAttachments(deps: CommandDeps, owner: Owner, values: QuestionValues, ids: string[]): Promise<StoredQuestion | undefined> {
  const unique = [...new Set(ids)];
  return withTransaction(deps, async (trx) => {
    const locked = values.sessionId ? await lockSendableAttachments(trx, owner, values.sessionId, unique) : [];
    // Read after the locks: a file another question took meanwhile shows as sent here.
    await checkAttachments({ db: trx }, owner, values.sessionId, unique);
    const stored = await storeQuestion(trx, owner, values);
    if (!stored) return undefined;
    const linked = await linkAttachments(trx, owner, stored.sessionId, unique, stored.messageId);
    if (linked !== unique.length) {
      throw new Refusal("conflict", "ATTACHMENT_ALREADY_SENT", "One of the attached files was sent with another message meanwhile; nothing was sent", {
        attachment_id: unique.find((id) => !locked.includes(id)) ?? unique[0],
      });
    }
    return stored;
  });
}

/** The question, stored; undefined when the session is not the caller's. */
async function store(deps: CommandDeps, owner: Owner, start: TurnStart, values: QuestionValues): Promise<StoredQuestion | undefined> {
  const attachmentIds = start.agentType === "tutor" ? (start.attachmentIds ?? []) : [];
  if (attachmentIds.length > 0) return storeWithAttachments(deps, owner, values, attachmentIds);
  // Admin sessions take one turn at a time: refused while an earlier turn has no answer yet.
  const sessionId = values.sessionId;
  if (start.agentType !== "admin" || !sessionId) return storeQuestion(deps.db, owner, values);
  const result = await withTransaction(deps, (trx) => storeAdminQuestion(trx, owner, { ...values, sessionId }));
  if ("missing" in result) return undefined;
  if ("busy" in result)
    throw new Refusal(
      "conflict",
      "TURN_IN_PROGRESS",
      "The previous message of this conversation is still being answered; wait for its answer (or cancel it) before sending the next one.",
      { turn_id: result.busy.turnId },
    );
  return result.stored;
}

async function enqueue(deps: CommandDeps, start: TurnStart, ids: { orgId: string; userId: string; sessionId: string; turnId: string; messageId: string }) {
  if (start.agentType === "tutor") return deps.producer.enqueueTutorTurn({ ...ids, courseId: start.courseId, lessonId: start.lessonId });
  return deps.producer.enqueueAdminTurn(ids);
}

export async function startTurn(deps: StartTurnDeps, owner: Owner, start: TurnStart): Promise<StartedTurn> {
  const message = start.message.trim();
  const turnId = randomUUID();
  const tutor = start.agentType === "tutor" ? start : undefined;

  const stored = await store(deps, owner, start, {
    sessionId: start.sessionId,
    agentType: start.agentType,
    title: titleFrom(message),
    // The tutor's session remembers the pinned course and lesson.
    sessionContext: tutor?.courseId ? { course_id: tutor.courseId, lesson_id: tutor.lessonId } : undefined,
    turnId,
    content: message,
    metadata: tutor ? { context: tutor.requestContext } : {},
  });
  if (!stored) throw Refusal.notFound("Chat session");
  const { sessionId, messageId, createdSession } = stored;

  // The request's log line (and anything logged from here on) names the turn, so one grep follows it.
  addToLogContext({ sessionId, turnId });
  // The session's latest-turn key (for a second tab joining late) and the queue write go out
  // together: one round trip. Only the queue decides the answer — a turn that is queued runs, so
  // a 503 then would make the client send it twice; a key that did not take is only logged.
  const latest = deps.events.setLatestTurn(sessionId, turnId);
  latest.catch(() => undefined); // read below, once the queue has answered
  try {
    await enqueue(deps, start, { orgId: owner.orgId, userId: owner.userId, sessionId, turnId, messageId });
  } catch (error) {
    deps.log.error({ err: error, sessionId, turnId }, "could not enqueue the turn; undoing this request's rows");
    await deleteMessage(deps.db, owner.orgId, messageId);
    if (createdSession) await deleteOwnedSession(deps.db, owner, sessionId);
    throw new Refusal("unavailable", "QUEUE_UNAVAILABLE", "The chat queue is unavailable right now; your message was not sent. Please retry.", undefined, {
      cause: error,
    });
  }
  // Counted once the queue has it: a refused turn is no accepted turn (and starts no first-token clock).
  deps.metrics.turnAccepted(turnId);
  await latest.catch((error: unknown) =>
    deps.log.warn({ err: error, sessionId, turnId }, "the session's latest-turn key was not set; a late joiner replays no turn"),
  );
  return { session_id: sessionId, turn_id: turnId, message_id: messageId };
}
