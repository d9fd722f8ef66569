/**
 * Everything the platform holds about one person that an export hands them (GDPR articles 15 and
 * 20): their profile, their chat sessions with every message (an answer with the citations it
 * gave), their ratings, enrolments, skill levels, exercise attempts and review schedules, and the
 * identity links they sign in through. Read in the person's organisation only; the archive is
 * built from this by workers/person-data/export-archive.ts.
 */
import type { Db } from "../knex";
import { readMetadata, type StoredSource } from "./message-metadata";

export interface ExportedMessage {
  id: string;
  turn_id: string;
  role: "user" | "assistant";
  content: string;
  status: string;
  created_at: Date;
  rung: string | null;
  citations: StoredSource[];
}

export interface ExportedSession {
  id: string;
  agent_type: "tutor" | "admin";
  title: string | null;
  summary: string | null;
  context: unknown;
  created_at: Date;
  updated_at: Date;
  messages: ExportedMessage[];
  /** Files attached to the conversation (tutor sessions); their bytes are read one at a time by readExportedAttachment. */
  attachments?: ExportedAttachment[];
}

export interface ExportedAttachment {
  id: string;
  message_id: string | null;
  filename: string;
  format: string;
  size_bytes: number;
  status: string;
  error_code: string | null;
  created_at: Date;
}

export interface PersonData {
  profile: Record<string, unknown>;
  sessions: ExportedSession[];
  feedback: Array<Record<string, unknown>>;
  enrolments: Array<Record<string, unknown>>;
  skills: Array<Record<string, unknown>>;
  exercise_attempts: Array<Record<string, unknown>>;
  review_schedules: Array<Record<string, unknown>>;
  identity_links: Array<Record<string, unknown>>;
}

/** Sessions whose messages are read in one statement: bounded memory per statement, few round trips. */
const SESSIONS_PER_READ = 50;

async function sessionsWithMessages(db: Db, orgId: string, userId: string): Promise<ExportedSession[]> {
  const sessions: ExportedSession[] = (
    await db("chat_sessions")
      .select("id", "agent_type", "title", "summary", "context", "created_at", "updated_at")
      .where({ org_id: orgId, user_id: userId })
      .orderBy("created_at")
  ).map((session: Omit<ExportedSession, "messages">) => ({ ...session, messages: [] }));
  const byId = new Map(sessions.map((session) => [session.id, session]));
  for (let start = 0; start < sessions.length; start += SESSIONS_PER_READ) {
    const ids = sessions.slice(start, start + SESSIONS_PER_READ).map((session) => session.id);
    const rows = await db("chat_messages")
      .select("id", "session_id", "turn_id", "role", "content", "status", "metadata", "created_at")
      .where({ org_id: orgId })
      .whereIn("session_id", ids)
      .orderBy([{ column: "created_at" }, { column: "role", order: "desc" }]);
    for (const row of rows) {
      const metadata = readMetadata(row.metadata);
      byId.get(row.session_id)?.messages.push({
        id: row.id,
        turn_id: row.turn_id,
        role: row.role,
        content: row.content,
        status: row.status,
        created_at: row.created_at,
        rung: metadata.rung ?? null,
        citations: metadata.citations ?? [],
      });
    }
    const attachments = await db("chat_attachments")
      .select("id", "session_id", "message_id", "filename", "format", "size_bytes", "status", "error_code", "created_at")
      .where({ org_id: orgId, user_id: userId })
      .whereIn("session_id", ids)
      .orderBy("created_at");
    for (const { session_id, ...attachment } of attachments as Array<ExportedAttachment & { session_id: string }>) {
      const session = byId.get(session_id);
      if (session) (session.attachments ??= []).push(attachment);
    }
  }
  return sessions;
}

/**
 * One attached file's bytes, for the archive: read one file at a time as the zip is written, so an
 * export holds at most one attachment's bytes (≤ ATTACHMENT_MAX_BYTES) besides the zip itself.
 * Undefined when it went meanwhile (its conversation deleted during the export).
 */
export async function readExportedAttachment(db: Db, orgId: string, userId: string, attachmentId: string): Promise<Buffer | undefined> {
  const row = await db("chat_attachments").where({ id: attachmentId, org_id: orgId, user_id: userId }).first("content");
  return row?.content as Buffer | undefined;
}

/** The person's data, or undefined when they are not a person of this organisation. */
export async function collectPersonData(db: Db, orgId: string, userId: string): Promise<PersonData | undefined> {
  const profile = await db("users")
    .select("id", "email", "name", "role", "department", "job_title", "locale", "is_active", "provisioned_via", "external_id", "created_at", "deactivated_at")
    .where({ id: userId, org_id: orgId })
    .first();
  if (!profile) return undefined;
  const mine = { org_id: orgId, user_id: userId };
  const [sessions, feedback, enrolments, skills, attempts, reviews, links] = await Promise.all([
    sessionsWithMessages(db, orgId, userId),
    db("chat_feedback").select("message_id", "rating", "comment", "rung", "created_at", "updated_at").where(mine).orderBy("created_at"),
    db("enrollments as e")
      .join("courses as c", "c.id", "e.course_id")
      .select("c.id as course_id", "c.title as course", "e.status", "e.deadline", "e.score", "e.started_at", "e.completed_at")
      .where({ "e.org_id": orgId, "e.user_id": userId })
      .orderBy("c.title"),
    db("user_skills as us")
      .join("skills as s", "s.id", "us.skill_id")
      .leftJoin("skill_categories as sc", "sc.id", "s.category_id")
      .select("s.id as skill_id", "s.name as skill", "sc.name as category", "us.level", "us.updated_at")
      .where({ "us.org_id": orgId, "us.user_id": userId })
      .orderBy("s.name"),
    db("exercise_attempts as a")
      .join("exercises as x", "x.id", "a.exercise_id")
      .select("x.id as exercise_id", "x.prompt as exercise", "a.score", "a.passed", "a.created_at")
      .where({ "a.org_id": orgId, "a.user_id": userId })
      .orderBy("a.created_at"),
    db("spaced_repetition as r")
      .join("exercises as x", "x.id", "r.exercise_id")
      .select("x.id as exercise_id", "x.prompt as exercise", "r.next_review_at", "r.interval_days", "r.ease")
      .where({ "r.org_id": orgId, "r.user_id": userId })
      .orderBy("r.next_review_at"),
    db("identity_links").select("issuer", "subject", "created_at", "last_sign_in_at").where(mine).orderBy("created_at"),
  ]);
  return { profile, sessions, feedback, enrolments, skills, exercise_attempts: attempts, review_schedules: reviews, identity_links: links };
}
