/**
 * Everything a tutor stage reads about its turn, in one round trip: the session (to check it is
 * still the asker's), the question and the session's few before it, the asker, the organisation's name, and the course and lesson
 * given as context when the asker may still use them. Each stage runs it again rather than trusting
 * an earlier stage's copy, so a turn deleted, or a course lost, while it waits is noticed; one
 * query instead of six kept that cheap (bench/optimisations.md, section 2).
 */
import type { Db } from "../knex";
import { courseUsableBy, type Reader } from "./access";

/** How many earlier questions of the session are read for their language: enough for a clear signal, a bounded read. */
const EARLIER_QUESTIONS = 3;

export interface TurnRows {
  sessionUserId: string;
  orgName: string;
  question: string | null;
  userName: string | null;
  userLocale: string | null;
  /** The session's last few questions before this one, oldest first (for the language of a message too short to tell). */
  earlierQuestions: string | null;
  /** False when the asker was deactivated (or deleted) since the turn was accepted. */
  userActive: boolean;
  course: { id: string; title: string; sourceDocumentId: string | null; language: string } | null;
  lesson: { id: string; title: string; courseId: string } | null;
}

export async function findTurnRows(
  db: Db,
  reader: Reader,
  ids: { sessionId: string; turnId: string; courseId?: string | null; lessonId?: string | null },
): Promise<TurnRows | undefined> {
  const { rows } = await db.raw(
    `SELECT s.user_id AS session_user_id, o.name AS org_name, m.content AS question, u.name AS user_name, u.locale AS user_locale, u.is_active AS user_active,
            c.id AS course_id, c.title AS course_title, c.source_document_id, c.language AS course_language,
            (SELECT string_agg(e.content, E'\n' ORDER BY e.created_at)
               FROM (SELECT em.content, em.created_at FROM chat_messages em
                      WHERE em.session_id = s.id AND em.org_id = s.org_id AND em.role = 'user' AND em.turn_id <> ?
                      ORDER BY em.created_at DESC LIMIT ${EARLIER_QUESTIONS}) e) AS earlier_questions,
            l.id AS lesson_id, l.title AS lesson_title, l.course_id AS lesson_course_id
       FROM chat_sessions s
       JOIN organizations o ON o.id = s.org_id
       LEFT JOIN chat_messages m ON m.turn_id = ? AND m.role = 'user' AND m.org_id = s.org_id
       LEFT JOIN users u ON u.id = ? AND u.org_id = s.org_id
       LEFT JOIN courses c ON c.id = ? AND c.org_id = s.org_id AND ?
       LEFT JOIN lessons l ON l.id = ? AND l.org_id = s.org_id
      WHERE s.id = ? AND s.org_id = ?`,
    [ids.turnId, ids.turnId, reader.userId, ids.courseId ?? null, courseUsableBy(db, reader, "c"), ids.lessonId ?? null, ids.sessionId, reader.orgId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    sessionUserId: row.session_user_id,
    orgName: row.org_name,
    question: row.question,
    userName: row.user_name,
    userLocale: row.user_locale,
    earlierQuestions: row.earlier_questions ?? null,
    userActive: row.user_active === true,
    course: row.course_id ? { id: row.course_id, title: row.course_title, sourceDocumentId: row.source_document_id, language: row.course_language } : null,
    lesson: row.lesson_id ? { id: row.lesson_id, title: row.lesson_title, courseId: row.lesson_course_id } : null,
  };
}
