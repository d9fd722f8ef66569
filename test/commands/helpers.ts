/**
 * What the command suites share: people of the demo org made for one suite (removed after it),
 * an admin session holding a pending action with real items, a producer whose Redis connection
 * is gone (BullMQ's force-disconnect), and the events an action's log holds.
 */
import { randomUUID } from "node:crypto";
import type { AdminActionRow, NewActionItem } from "../../db/queries/admin-actions";
import { proposeAction } from "../../commands/action-run";
import { storeQuestion } from "../../db/queries/chat-questions";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { createRedis, redisTargetOf } from "../../queues/connection";
import { JobProducer } from "../../queues/producer";
import type { Stack } from "../support/stack";

const made: string[] = [];

export async function freshPerson(stack: Stack, role: "admin" | "employee" = "employee"): Promise<{ id: string; name: string }> {
  const name = `Command ${randomUUID().slice(0, 8)}`;
  const [row] = await stack.server.deps
    .db("users")
    .insert({ org_id: DEMO_IDS.orgId, email: `command-${randomUUID().slice(0, 8)}@example.com`, name, role, department: "QA", locale: "en" })
    .returning(["id", "name"]);
  made.push(row.id);
  return row;
}

export async function removePeople(stack: Stack): Promise<void> {
  const ids = made.splice(0);
  if (ids.length > 0) await stack.server.deps.db("users").whereIn("id", ids).delete();
}

/** An admin's session with one stored question (nothing queued), as a turn leaves it. */
export async function adminSession(stack: Stack, adminId: string): Promise<{ sessionId: string; turnId: string }> {
  const turnId = randomUUID();
  const stored = await storeQuestion(
    stack.server.deps.db,
    { orgId: DEMO_IDS.orgId, userId: adminId },
    { sessionId: undefined, agentType: "admin", title: "commands", sessionContext: undefined, turnId, content: "deactivate someone", metadata: {} },
  );
  return { sessionId: stored!.sessionId, turnId };
}

/** A pending deactivation of `target`, proposed in the admin's session. */
export async function pendingDeactivation(stack: Stack, adminId: string, target: { id: string; name: string }): Promise<AdminActionRow> {
  const { sessionId, turnId } = await adminSession(stack, adminId);
  const items: NewActionItem[] = [
    { target: { user_id: target.id }, label: `${target.name}: deactivate`, before: { is_active: true }, after: { is_active: false } },
  ];
  return proposeAction(
    { db: stack.server.deps.db },
    {
      orgId: DEMO_IDS.orgId,
      userId: adminId,
      sessionId,
      turnId,
      tool: "deactivate_employee",
      args: { employee_id: target.id },
      preview: `Deactivate ${target.name}.`,
      estimate: { items: 1, writes: 3, seconds: 1 },
      expiresAt: new Date(Date.now() + 3600_000),
      items,
    },
  );
}

/** A producer on its own connection, cut: every enqueue is refused, as when Redis drops the server's queue connection. */
export async function refusingProducer(stack: Stack): Promise<JobProducer> {
  const log = stack.server.deps.log;
  const producer = new JobProducer(createRedis(redisTargetOf(stack.config), "producer", log), log);
  await producer.queue("admin-actions").disconnect();
  return producer;
}

export async function actionEvents(stack: Stack, actionId: string): Promise<Array<{ event: string; status?: string; by?: string }>> {
  await stack.server.deps.events.flushed();
  const logged = await stack.server.deps.events.readStream({ kind: "action", id: actionId }, 0);
  return logged.map(({ event, payload }) => {
    const { status, by } = payload as { status?: string; by?: string };
    return { event, ...(status ? { status } : {}), ...(by ? { by } : {}) };
  });
}
