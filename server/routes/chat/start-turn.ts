/**
 * Starting a chat turn (tutor or admin assistant): store the user's message (creating the session on first use), then
 * enqueue the turn once the transaction has committed, so no job ever points at a row that
 * does not exist. If the queue refuses, the rows this request created are removed again and
 * the caller gets a 503 to retry; nothing stored earlier is touched.
 */
import { randomUUID } from "node:crypto";
import { courseAvailability, findLesson } from "../../../db/queries/courses";
import { deleteOwnedSession, findOwnedSession, type AgentType, type Owner } from "../../../db/queries/chat-sessions";
import { deleteMessage } from "../../../db/queries/chat-messages";
import { storeAdminQuestion, storeQuestion, type QuestionValues, type StoredQuestion } from "../../../db/queries/chat-questions";
import { addToLogContext } from "../../../lib/logger";
import { HttpError, notFound } from "../../errors";
import type { ServerDeps } from "../../deps";
import { tutorSessionOf, type PostAdminChatBody, type PostChatBody } from "./schema";

export interface StartedTurn {
  session_id: string;
  turn_id: string;
  message_id: string;
}

const TITLE_CHARS = 80;

export function titleFrom(message: string): string {
  const flat = message.replace(/\s+/g, " ").trim();
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export async function startTutorTurn(deps: ServerDeps, owner: Owner, body: PostChatBody): Promise<StartedTurn> {
  const context = await resolveContext(deps, owner, body);
  const pinned = context.courseId ? { course_id: context.courseId, lesson_id: context.lessonId } : undefined;
  return startTurn(deps, owner, {
    agentType: "tutor",
    message: body.message,
    sessionId: tutorSessionOf(body),
    sessionContext: pinned,
    metadata: { context: body.context },
    enqueue: (ids) => deps.producer.enqueueTutorTurn({ ...ids, courseId: context.courseId, lessonId: context.lessonId }),
  });
}

/** An admin assistant turn: same storage and ordering guarantees, its own session type and queue. */
export async function startAdminTurn(deps: ServerDeps, owner: Owner, body: PostAdminChatBody): Promise<StartedTurn> {
  return startTurn(deps, owner, {
    agentType: "admin",
    message: body.message,
    sessionId: body.session_id,
    metadata: {},
    oneTurnAtATime: true,
    enqueue: (ids) => deps.producer.enqueueAdminTurn(ids),
  });
}

interface TurnRequest {
  agentType: AgentType;
  message: string;
  sessionId: string | undefined;
  /** Replaces the session's context (tutor: the pinned course and lesson). */
  sessionContext?: Record<string, unknown> | undefined;
  metadata: Record<string, unknown>;
  /** Refuse (409 TURN_IN_PROGRESS) while an earlier turn of the session has no answer yet (admin sessions). */
  oneTurnAtATime?: boolean;
  enqueue(ids: { orgId: string; userId: string; sessionId: string; turnId: string; messageId: string }): Promise<void>;
}

/** The question, stored; undefined when the session is not the caller's. */
async function store(deps: ServerDeps, owner: Owner, request: TurnRequest, values: QuestionValues): Promise<StoredQuestion | undefined> {
  if (!request.oneTurnAtATime || !values.sessionId) return storeQuestion(deps.db, owner, values);
  const result = await storeAdminQuestion(deps.db, owner, { ...values, sessionId: values.sessionId });
  if ("missing" in result) return undefined;
  if ("busy" in result)
    throw new HttpError(
      409,
      "TURN_IN_PROGRESS",
      "The previous message of this conversation is still being answered; wait for its answer (or cancel it) before sending the next one.",
      { turn_id: result.busy.turnId },
    );
  return result.stored;
}

async function startTurn(deps: ServerDeps, owner: Owner, request: TurnRequest): Promise<StartedTurn> {
  const { db } = deps;
  const message = request.message.trim();
  const turnId = randomUUID();

  const stored = await store(deps, owner, request, {
    sessionId: request.sessionId,
    agentType: request.agentType,
    title: titleFrom(message),
    sessionContext: request.sessionContext,
    turnId,
    content: message,
    metadata: request.metadata,
  });
  if (!stored) throw notFound("Chat session");
  const { sessionId, messageId, createdSession } = stored;

  // The request's log line (and anything logged from here on) names the turn, so one grep follows it.
  addToLogContext({ sessionId, turnId });
  try {
    await deps.events.setLatestTurn(sessionId, turnId);
    deps.metrics.turnAccepted(turnId);
    await request.enqueue({ orgId: owner.orgId, userId: owner.userId, sessionId, turnId, messageId });
  } catch (error) {
    deps.log.error({ err: error, sessionId, turnId }, "could not enqueue the turn; undoing this request's rows");
    await deleteMessage(db, owner.orgId, messageId);
    if (createdSession) await deleteOwnedSession(db, owner, sessionId);
    throw new HttpError(503, "QUEUE_UNAVAILABLE", "The chat queue is unavailable right now; your message was not sent. Please retry.");
  }
  return { session_id: sessionId, turn_id: turnId, message_id: messageId };
}

/**
 * The course and lesson the employee is looking at. A course named in the request must be one
 * they may use (enrolled and not archived; admins: any course of their org), else 403
 * COURSE_NOT_AVAILABLE; one that is not in their org is 404. A course inherited from the session
 * that is no longer available is dropped instead, so the conversation can go on without it.
 */
async function resolveContext(deps: ServerDeps, owner: Owner, body: PostChatBody): Promise<{ courseId: string | null; lessonId: string | null }> {
  let courseId = body.context.course_id ?? null;
  const lessonId = body.context.lesson_id ?? null;
  // A follow-up in an existing session stays where the session is, unless it says otherwise.
  const sessionId = tutorSessionOf(body);
  if (!courseId && !lessonId && sessionId) {
    const session = await findOwnedSession(deps.db, owner, sessionId);
    const saved = (session?.context ?? {}) as { course_id?: string | null; lesson_id?: string | null };
    const savedCourse = saved.course_id ?? null;
    if (!savedCourse || (await courseAvailability(deps.db, owner, savedCourse)) !== "usable") return { courseId: null, lessonId: null };
    const savedLesson = saved.lesson_id ? await findLesson(deps.db, owner.orgId, saved.lesson_id) : undefined;
    return { courseId: savedCourse, lessonId: savedLesson?.course_id === savedCourse ? savedLesson.id : null };
  }
  if (lessonId) {
    const lesson = await findLesson(deps.db, owner.orgId, lessonId);
    if (!lesson) throw notFound("Lesson");
    if (courseId && lesson.course_id !== courseId) throw new HttpError(400, "VALIDATION_ERROR", "lesson_id does not belong to course_id");
    courseId = lesson.course_id;
  }
  if (courseId) {
    const availability = await courseAvailability(deps.db, owner, courseId);
    if (availability === "missing") throw notFound("Course");
    if (availability === "not_usable") {
      throw new HttpError(403, "COURSE_NOT_AVAILABLE", "This course is not available to you: you are not enrolled in it, or it has been archived");
    }
  }
  return { courseId, lessonId };
}
