/** Everything a tutor stage needs to know about its turn, loaded from the database by ids. */
import { findTurnRows } from "../../db/queries/turn-context";
import type { TutorTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import type { Language } from "../../lib/language";
import { detectLanguage, languageOf } from "../../lib/language-detection";
import { CallerRevokedError } from "../turns/caller-revoked";
import { TurnGoneError } from "../turns/turn-gone";

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
  const reader = { orgId: payload.orgId, userId: payload.userId };
  const rows = await findTurnRows(deps.db, reader, payload);
  // Deleted while queued (or never ours): nothing to answer, and retrying will not change that.
  if (!rows || rows.sessionUserId !== payload.userId || rows.question === null || rows.userName === null) {
    throw new TurnGoneError("turn");
  }
  // Deactivated while the turn waited: it ends here, before any stage asks the model.
  if (!rows.userActive) throw new CallerRevokedError("ACCOUNT_INACTIVE");
  // Checked again at run time, not only when the turn was accepted: an employee unenrolled (or
  // a course archived) while the turn waited in the queue loses the course, it is never read.
  const course = rows.course;
  const lesson = course && rows.lesson?.courseId === course.id ? rows.lesson : null;
  if ((payload.courseId && !course) || (payload.lessonId && !lesson)) {
    deps.log.warn(
      { turnId: payload.turnId, courseId: payload.courseId, lessonId: payload.lessonId, courseKept: Boolean(course) },
      "course context no longer available to this user; dropped",
    );
  }
  return {
    orgId: payload.orgId,
    orgName: rows.orgName || "your company",
    userId: payload.userId,
    userName: rows.userName,
    sessionId: payload.sessionId,
    turnId: payload.turnId,
    question: rows.question,
    // A message too short to tell ("ok", "merci") takes the session's language, then the employee's, then the course's.
    language: detectLanguage(rows.question, rows.earlierQuestions ? languageOf(rows.earlierQuestions) : undefined, rows.userLocale, course?.language),
    courseId: course?.id ?? null,
    courseTitle: course?.title ?? null,
    sourceDocumentId: course?.sourceDocumentId ?? null,
    lessonId: lesson?.id ?? null,
    lessonTitle: lesson?.title ?? null,
  };
}
