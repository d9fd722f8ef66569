/** Everything a tutor stage needs to know about its turn, loaded from the database by ids. */
import { UnrecoverableError } from "bullmq";
import { findLesson, findUsableCourse } from "../../db/queries/courses";
import { findSessionInOrg } from "../../db/queries/chat-sessions";
import { findTurnMessage } from "../../db/queries/chat-messages";
import { findOrganisationName, findUser } from "../../db/queries/users";
import type { TutorTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { detectLanguage, type Language } from "./language";

export interface TurnContext {
  orgId: string;
  orgName: string;
  userId: string;
  userName: string;
  sessionId: string;
  turnId: string;
  question: string;
  language: Language;
  courseId: string | null;
  courseTitle: string | null;
  sourceDocumentId: string | null;
  lessonId: string | null;
  lessonTitle: string | null;
}

export async function loadTurnContext(deps: WorkerDeps, payload: TutorTurnPayload): Promise<TurnContext> {
  const { db } = deps;
  const [session, message, user, orgName] = await Promise.all([
    findSessionInOrg(db, payload.orgId, payload.sessionId),
    findTurnMessage(db, payload.orgId, payload.turnId, "user"),
    findUser(db, payload.orgId, payload.userId),
    findOrganisationName(db, payload.orgId),
  ]);
  // Deleted while queued (or never ours): nothing to answer, and retrying will not change that.
  if (!session || session.user_id !== payload.userId || !message || !user) {
    throw new UnrecoverableError("turn no longer exists (session or message deleted)");
  }
  // Checked again at run time, not only when the turn was accepted: an employee unenrolled (or
  // a course archived) while the turn waited in the queue loses the course, it is never read.
  const reader = { orgId: payload.orgId, userId: payload.userId };
  const course = payload.courseId ? await findUsableCourse(db, reader, payload.courseId) : undefined;
  const found = course && payload.lessonId ? await findLesson(db, payload.orgId, payload.lessonId) : undefined;
  const lesson = found?.course_id === course?.id ? found : undefined;
  if ((payload.courseId && !course) || (payload.lessonId && !lesson)) {
    deps.log.warn(
      { turnId: payload.turnId, courseId: payload.courseId, lessonId: payload.lessonId, courseKept: Boolean(course) },
      "course context no longer available to this user; dropped",
    );
  }
  return {
    orgId: payload.orgId,
    orgName: orgName ?? "your company",
    userId: payload.userId,
    userName: user.name,
    sessionId: payload.sessionId,
    turnId: payload.turnId,
    question: message.content,
    language: detectLanguage(message.content, user.locale),
    courseId: course?.id ?? null,
    courseTitle: course?.title ?? null,
    sourceDocumentId: course?.source_document_id ?? null,
    lessonId: lesson?.id ?? null,
    lessonTitle: lesson?.title ?? null,
  };
}
