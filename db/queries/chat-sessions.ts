/** Chat sessions: every read and write is scoped to the owning user and org. */
import type { Db } from "../knex";
import { sessionContext, type SessionContext } from "./json-columns";

export type AgentType = "tutor" | "admin";

export interface ChatSessionRow {
  id: string;
  org_id: string;
  user_id: string;
  agent_type: AgentType;
  title: string | null;
  summary: string | null;
  summary_turn_count: number;
  /** Parsed on every read (json-columns.ts). */
  context: SessionContext;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

type StoredSessionRow = Omit<ChatSessionRow, "context"> & { context: unknown };

const toSession = (row: StoredSessionRow): ChatSessionRow => ({ ...row, context: sessionContext.parse(row.context) });

export interface Owner {
  orgId: string;
  userId: string;
}

export async function findOwnedSession(db: Db, owner: Owner, sessionId: string): Promise<ChatSessionRow | undefined> {
  const row = await db<StoredSessionRow>("chat_sessions").where({ id: sessionId, org_id: owner.orgId, user_id: owner.userId }).first();
  return row && toSession(row);
}

/** Workers look sessions up by org only: the job payload already names the owner. */
export async function findSessionInOrg(db: Db, orgId: string, sessionId: string): Promise<ChatSessionRow | undefined> {
  const row = await db<StoredSessionRow>("chat_sessions").where({ id: sessionId, org_id: orgId }).first();
  return row && toSession(row);
}

export async function createSession(db: Db, owner: Owner, values: { agentType: AgentType; title: string; context: SessionContext }): Promise<ChatSessionRow> {
  const [row] = await db<StoredSessionRow>("chat_sessions")
    .insert({ org_id: owner.orgId, user_id: owner.userId, agent_type: values.agentType, title: values.title, context: values.context })
    .returning("*");
  return toSession(row!);
}

export async function listOwnedSessions(db: Db, owner: Owner, agentType?: AgentType): Promise<ChatSessionRow[]> {
  const query = db<StoredSessionRow>("chat_sessions").where({ org_id: owner.orgId, user_id: owner.userId }).orderBy("updated_at", "desc").limit(50);
  if (agentType) query.andWhere({ agent_type: agentType });
  return (await query).map(toSession);
}

export async function touchSession(db: Db, orgId: string, sessionId: string, context?: SessionContext): Promise<void> {
  await db("chat_sessions")
    .where({ id: sessionId, org_id: orgId })
    .update({ updated_at: db.fn.now(), ...(context ? { context } : {}) });
}

export async function saveSummary(db: Db, orgId: string, sessionId: string, summary: string, turnCount: number): Promise<void> {
  await db("chat_sessions").where({ id: sessionId, org_id: orgId }).update({ summary, summary_turn_count: turnCount });
}
