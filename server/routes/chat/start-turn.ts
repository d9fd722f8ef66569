/**
 * Starting a tutor turn: store the user's message (creating the session on first use), then
 * enqueue the turn once the transaction has committed, so no job ever points at a row that
 * does not exist. If the queue refuses, the rows this request created are removed again and
 * the caller gets a 503 to retry; nothing stored earlier is touched.
 */
import { randomUUID } from "node:crypto";
import { findCourse, findLesson } from "../../../db/queries/courses";
import { createSession, findOwnedSession, touchSession, type Owner } from "../../../db/queries/chat-sessions";
import { insertUserMessage } from "../../../db/queries/chat-messages";
import { HttpError, notFound } from "../../errors";
import type { ServerDeps } from "../../deps";
import type { PostChatBody } from "./schema";

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
  const { db } = deps;
  const message = body.message.trim();
  const context = await resolveContext(deps, owner, body);
  const turnId = randomUUID();

  const { sessionId, messageId, createdSession } = await db.transaction(async (trx) => {
    let sessionId = body.context.session_id;
    let createdSession = false;
    if (sessionId) {
      const session = await findOwnedSession(trx, owner, sessionId);
      if (!session || session.agent_type !== "tutor") throw notFound("Chat session");
      await touchSession(trx, owner.orgId, sessionId, context.courseId ? { course_id: context.courseId, lesson_id: context.lessonId } : undefined);
    } else {
      const session = await createSession(trx, owner, {
        agentType: "tutor",
        title: titleFrom(message),
        context: context.courseId ? { course_id: context.courseId, lesson_id: context.lessonId } : {},
      });
      sessionId = session.id;
      createdSession = true;
    }
    const row = await insertUserMessage(trx, { orgId: owner.orgId, sessionId, turnId, content: message, metadata: { context: body.context } });
    return { sessionId, messageId: row.id, createdSession };
  });

  try {
    await deps.events.setLatestTurn(sessionId, turnId);
    await deps.producer.enqueueTutorTurn({
      orgId: owner.orgId,
      userId: owner.userId,
      sessionId,
      turnId,
      messageId,
      courseId: context.courseId,
      lessonId: context.lessonId,
    });
  } catch (error) {
    deps.log.error({ err: error, sessionId, turnId }, "could not enqueue tutor turn; undoing this request's rows");
    await db("chat_messages").where({ id: messageId, org_id: owner.orgId }).delete();
    if (createdSession) await db("chat_sessions").where({ id: sessionId, org_id: owner.orgId }).delete();
    throw new HttpError(503, "QUEUE_UNAVAILABLE", "The chat queue is unavailable right now; your message was not sent. Please retry.");
  }
  return { session_id: sessionId, turn_id: turnId, message_id: messageId };
}

/** The course and lesson the employee is looking at; both must belong to their org. */
async function resolveContext(deps: ServerDeps, owner: Owner, body: PostChatBody): Promise<{ courseId: string | null; lessonId: string | null }> {
  let courseId = body.context.course_id ?? null;
  let lessonId = body.context.lesson_id ?? null;
  // A follow-up in an existing session stays where the session is, unless it says otherwise.
  if (!courseId && !lessonId && body.context.session_id) {
    const session = await findOwnedSession(deps.db, owner, body.context.session_id);
    const saved = (session?.context ?? {}) as { course_id?: string | null; lesson_id?: string | null };
    courseId = saved.course_id ?? null;
    lessonId = saved.lesson_id ?? null;
  }
  if (lessonId) {
    const lesson = await findLesson(deps.db, owner.orgId, lessonId);
    if (!lesson) throw notFound("Lesson");
    if (courseId && lesson.course_id !== courseId) throw new HttpError(400, "VALIDATION_ERROR", "lesson_id does not belong to course_id");
    courseId = lesson.course_id;
  }
  if (courseId && !(await findCourse(deps.db, owner.orgId, courseId))) throw notFound("Course");
  return { courseId, lessonId };
}
