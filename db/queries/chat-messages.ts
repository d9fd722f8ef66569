/** Chat messages. An assistant message is unique per turn: a retried job can never store two. */
import type { Db } from "../knex";
import { readMetadata, type MessageMetadata, type StoredMetadata } from "./message-metadata";

export type MessageRole = "user" | "assistant";
/** `cancelled`: the owner stopped the turn; the content is what had streamed by then. */
export type MessageStatus = "complete" | "failed" | "cancelled";

export interface ChatMessageRow {
  id: string;
  org_id: string;
  session_id: string;
  turn_id: string;
  role: MessageRole;
  content: string;
  status: MessageStatus;
  /** Parsed on every read (message-metadata.ts): never a cast. */
  metadata: MessageMetadata;
  created_at: Date;
}

/** A row as Postgres returns it, before its metadata is read. */
type StoredRow = Omit<ChatMessageRow, "metadata"> & { metadata: unknown };

const toMessage = (row: StoredRow): ChatMessageRow => ({ ...row, metadata: readMetadata(row.metadata) });

export async function insertUserMessage(
  db: Db,
  values: { orgId: string; sessionId: string; turnId: string; content: string; metadata?: StoredMetadata },
): Promise<ChatMessageRow> {
  const [row] = await db<StoredRow>("chat_messages")
    .insert({
      org_id: values.orgId,
      session_id: values.sessionId,
      turn_id: values.turnId,
      role: "user",
      content: values.content,
      metadata: values.metadata ?? {},
    })
    .returning("*");
  return toMessage(row!);
}

/**
 * Stores the assistant's answer for a turn exactly once — the one writer of an answer's metadata,
 * whichever way the turn ended (answered, cancelled, failed; tutor or admin). A second call for the
 * same turn (a redelivered job) returns the row stored first and changes nothing.
 */
export async function insertAssistantMessageOnce(
  db: Db,
  values: { orgId: string; sessionId: string; turnId: string; content: string; status?: MessageStatus; metadata: StoredMetadata },
): Promise<{ row: ChatMessageRow; inserted: boolean }> {
  const inserted = await db<StoredRow>("chat_messages")
    .insert({
      org_id: values.orgId,
      session_id: values.sessionId,
      turn_id: values.turnId,
      role: "assistant",
      content: values.content,
      status: values.status ?? "complete",
      metadata: values.metadata,
    })
    .onConflict(["turn_id", "role"])
    .ignore()
    .returning("*");
  if (inserted[0]) return { row: toMessage(inserted[0]), inserted: true };
  const existing = await findTurnMessage(db, values.orgId, values.turnId, "assistant");
  return { row: existing!, inserted: false };
}

export async function findTurnMessage(db: Db, orgId: string, turnId: string, role: MessageRole): Promise<ChatMessageRow | undefined> {
  const row = await db<StoredRow>("chat_messages").where({ org_id: orgId, turn_id: turnId, role }).first();
  return row && toMessage(row);
}

// Messages are shown in (created_at, user before assistant, id) order; the id makes it total,
// so a keyset cursor never skips or repeats a row. Ranks keep row comparison one-directional.
const RANK = "CASE role WHEN 'user' THEN 0 ELSE 1 END";
const NEWEST_FIRST = `created_at DESC, ${RANK} DESC, id DESC`;

export interface MessagePage {
  /** Oldest first within the page. */
  messages: ChatMessageRow[];
  /** Pass as `before` to get the page of older messages; null when this page reaches the start. */
  nextBefore: string | null;
}

/** Whether `messageId` is a message of this session (a `before` cursor must be). */
/** Whether `turnId` is a turn of the session (its question is stored there). */
export async function isSessionTurn(db: Db, orgId: string, sessionId: string, turnId: string): Promise<boolean> {
  return Boolean(await db("chat_messages").where({ org_id: orgId, session_id: sessionId, turn_id: turnId, role: "user" }).first("id"));
}

/** How many questions the session has, counting the one being answered. */
export async function countUserMessages(db: Db, orgId: string, sessionId: string): Promise<number> {
  const row = await db("chat_messages").where({ org_id: orgId, session_id: sessionId, role: "user" }).count<{ count: string }[]>("* as count").first();
  return Number(row?.count ?? 0);
}

export async function isSessionMessage(db: Db, orgId: string, sessionId: string, messageId: string): Promise<boolean> {
  return Boolean(await db("chat_messages").where({ id: messageId, org_id: orgId, session_id: sessionId }).first("id"));
}

/**
 * One page of a session's history: the `limit` newest messages older than `before` (a message
 * id), or the newest of all. Keyset paging on the (session_id, created_at) index, so the cost
 * of a page does not grow with the session.
 */
export async function listSessionMessagePage(
  db: Db,
  orgId: string,
  sessionId: string,
  options: { before?: string | undefined; limit: number },
): Promise<MessagePage> {
  const query = db<StoredRow>("chat_messages")
    .where({ org_id: orgId, session_id: sessionId })
    .orderByRaw(NEWEST_FIRST)
    .limit(options.limit + 1);
  if (options.before) {
    // Compared in SQL: a JS Date would drop the microseconds and misplace the cursor.
    const cursor = db("chat_messages").where({ id: options.before, org_id: orgId, session_id: sessionId });
    query
      .andWhere("created_at", "<=", cursor.clone().select("created_at"))
      .andWhereRaw(`(created_at, ${RANK}, id) < ?`, [cursor.clone().select(db.raw(`created_at, ${RANK}, id`))]);
  }
  const rows = await query;
  const hasMore = rows.length > options.limit;
  const page = rows.slice(0, options.limit).reverse().map(toMessage);
  return { messages: page, nextBefore: hasMore ? (page[0]?.id ?? null) : null };
}

/**
 * The last `limit` complete messages before a turn, oldest first: the raw material for the
 * prompt's history. Bounded in SQL, so a session with 100,000 messages costs what one with a
 * hundred does.
 */
export async function listRecentMessagesBeforeTurn(db: Db, orgId: string, sessionId: string, turnId: string, limit: number): Promise<ChatMessageRow[]> {
  const rows = await beforeTurn(db, orgId, sessionId, turnId).orderByRaw(NEWEST_FIRST).limit(limit);
  return rows.reverse().map(toMessage);
}

/** How many complete turns (user messages) a session has before this one; counts on the index, loads nothing. */
export async function countTurnsBeforeTurn(db: Db, orgId: string, sessionId: string, turnId: string): Promise<number> {
  const row = await beforeTurn(db, orgId, sessionId, turnId).andWhere({ role: "user" }).count<{ count: string }[]>("* as count").first();
  return Number(row?.count ?? 0);
}

/** The session's last `limit` complete messages, oldest first (summary refreshes). */
export async function listRecentSessionMessages(db: Db, orgId: string, sessionId: string, limit: number): Promise<ChatMessageRow[]> {
  const rows = await db<StoredRow>("chat_messages").where({ org_id: orgId, session_id: sessionId, status: "complete" }).orderByRaw(NEWEST_FIRST).limit(limit);
  return rows.reverse().map(toMessage);
}

/** How many turns (user messages) the session has. */
export async function countSessionTurns(db: Db, orgId: string, sessionId: string): Promise<number> {
  const row = await db("chat_messages")
    .where({ org_id: orgId, session_id: sessionId, role: "user", status: "complete" })
    .count<{ count: string }[]>("* as count")
    .first();
  return Number(row?.count ?? 0);
}

/** Complete messages of the session older than the turn's own question. */
function beforeTurn(db: Db, orgId: string, sessionId: string, turnId: string) {
  const current = db("chat_messages").where({ org_id: orgId, turn_id: turnId, role: "user" }).select("created_at");
  return db<StoredRow>("chat_messages")
    .where({ org_id: orgId, session_id: sessionId, status: "complete" })
    .whereNot({ turn_id: turnId })
    .andWhere((where) => {
      // No stored question (deleted session mid-turn): everything else in the session counts.
      where.where("created_at", "<", current).orWhereNotExists(current.clone());
    });
}

/** The language of the session's latest answer (stored in its metadata), if any. */
export async function latestAnswerLanguage(db: Db, orgId: string, sessionId: string): Promise<string | undefined> {
  const row = await db("chat_messages")
    .where({ org_id: orgId, session_id: sessionId, role: "assistant" })
    .whereRaw("metadata->>'language' IS NOT NULL")
    .orderBy("created_at", "desc")
    .first(db.raw("metadata->>'language' AS language"));
  return typeof row?.language === "string" ? row.language : undefined;
}

/** Removes one message (a turn whose job could not be queued is undone). */
export async function deleteMessage(db: Db, orgId: string, messageId: string): Promise<void> {
  await db("chat_messages").where({ id: messageId, org_id: orgId }).delete();
}

/** A turn as its owner's cancel sees it: whose session, which agent, and how (whether) it was answered. */
export interface OwnedTurn {
  turnId: string;
  sessionId: string;
  agentType: "tutor" | "admin";
  /** The assistant message's status; null while the turn is still running. */
  answerStatus: MessageStatus | null;
}

/** The turn if its question is in one of this user's sessions of this org; undefined otherwise. */
export async function findOwnedTurn(db: Db, owner: { orgId: string; userId: string }, turnId: string): Promise<OwnedTurn | undefined> {
  return db("chat_messages as q")
    .join("chat_sessions as s", (on) => on.on("s.id", "q.session_id").andOn("s.org_id", "q.org_id"))
    .leftJoin("chat_messages as a", (on) => on.on("a.turn_id", "q.turn_id").andOn("a.org_id", "q.org_id").andOnVal("a.role", "assistant"))
    .where({ "q.org_id": owner.orgId, "q.turn_id": turnId, "q.role": "user", "s.user_id": owner.userId })
    .first<OwnedTurn | undefined>("q.turn_id as turnId", "s.id as sessionId", "s.agent_type as agentType", "a.status as answerStatus");
}
