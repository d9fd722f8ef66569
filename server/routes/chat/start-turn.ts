/**
 * A chat request turned into a turn: the tutor's course and lesson are checked against what the
 * caller may use, then the start-turn command stores the question and queues the turn.
 */
import { startTurn, type StartedTurn } from "../../../commands/start-turn";
import { courseAvailability, findLesson } from "../../../db/queries/courses";
import { findOwnedSession, type Owner } from "../../../db/queries/chat-sessions";
import { notFound } from "../../errors";
import { Refusal } from "../../../lib/refusal";
import type { ServerDeps } from "../../deps";
import { tutorSessionOf, type PostAdminChatBody, type PostChatBody } from "./schema";

type TurnContext = { courseId: string | null; lessonId: string | null };

export async function startTutorTurn(deps: ServerDeps, owner: Owner, body: PostChatBody): Promise<StartedTurn> {
  const context = await resolveContext(deps, owner, body);
  return startTurn(deps, owner, {
    agentType: "tutor",
    message: body.message,
    sessionId: tutorSessionOf(body),
    courseId: context.courseId,
    lessonId: context.lessonId,
    requestContext: body.context,
    attachmentIds: body.attachment_ids,
  });
}

/** An admin assistant turn: same storage and ordering guarantees, its own session type and queue. */
export async function startAdminTurn(deps: ServerDeps, owner: Owner, body: PostAdminChatBody): Promise<StartedTurn> {
  return startTurn(deps, owner, { agentType: "admin", message: body.message, sessionId: body.session_id });
}

/**
 * The course and lesson the employee is looking at. A course named in the request must be one
 * they may use (enrolled and not archived; admins: any course of their org), else 403
 * COURSE_NOT_AVAILABLE; one that is not in their org is 404. A course inherited from the session
 * that is no longer available is dropped instead, so the conversation can go on without it.
 */
async function resolveContext(deps: ServerDeps, owner: Owner, body: PostChatBody): Promise<TurnContext> {
  let courseId = body.context.course_id ?? null;
  const lessonId = body.context.lesson_id ?? null;
  // A follow-up in an existing session stays where the session is, unless it says otherwise.
  const sessionId = tutorSessionOf(body);
  if (!courseId && !lessonId && sessionId) {
    const session = await findOwnedSession(deps.db, owner, sessionId);
    const saved = session?.context ?? {};
    const savedCourse = saved.course_id ?? null;
    if (!savedCourse || (await courseAvailability(deps.db, owner, savedCourse)) !== "usable") return { courseId: null, lessonId: null };
    const savedLesson = saved.lesson_id ? await findLesson(deps.db, owner.orgId, saved.lesson_id) : undefined;
    return { courseId: savedCourse, lessonId: savedLesson?.course_id === savedCourse ? savedLesson.id : null };
  }
  if (lessonId) {
    const lesson = await findLesson(deps.db, owner.orgId, lessonId);
    if (!lesson) throw notFound("Lesson");
    if (courseId && lesson.course_id !== courseId) throw new Refusal("invalid", "VALIDATION_ERROR", "lesson_id does not belong to course_id");
    courseId = lesson.course_id;
  }
  if (courseId) {
    const availability = await courseAvailability(deps.db, owner, courseId);
    if (availability === "missing") throw notFound("Course");
    if (availability === "not_usable") {
      throw new Refusal("forbidden", "COURSE_NOT_AVAILABLE", "This course is not available to you: you are not enrolled in it, or it has been archived");
    }
  }
  return { courseId, lessonId };
}
