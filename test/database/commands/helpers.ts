/**
 * What the command suites share: an organisation of the suite's own (dropped after it) and
 * people made in it, an admin session holding a pending action with real items, a producer whose
 * Redis connection is gone (BullMQ's force-disconnect), and the events an action's log holds.
 */
import { randomUUID } from "node:crypto";
import type { AdminActionRow, NewActionItem } from "../../../db/queries/admin-actions";
import { proposeAction } from "../../../commands/action-run";
import { storeQuestion } from "../../../db/queries/chat-questions";
import { createRedis, redisTargetOf } from "../../../queues/connection";
import { JobProducer } from "../../../queues/producer";
import { type DatabaseSuite, databaseSuite } from "../../support/database";

/** The database lane with the suite's own organisation, built before its tests. */
export interface CommandLane extends DatabaseSuite {
  orgId: string;
}

/** The database lane for a command suite: call it first thing inside `describe(..., function () { ... })`. */
export function commandSuite(suite: Mocha.Suite): CommandLane {
  const lane = databaseSuite(suite);
  let orgId: string | undefined;
  suite.beforeAll(async () => {
    orgId = (await lane.build.buildOrg({ name: "Commands Ltd" })).id;
  });
  return new Proxy(lane as CommandLane, {
    get(target, key) {
      if (key !== "orgId") return target[key as keyof DatabaseSuite];
      if (!orgId) throw new Error("the suite's organisation is used before its before() hook built it");
      return orgId;
    },
  });
}

export async function freshPerson(lane: CommandLane, role: "admin" | "employee" = "employee"): Promise<{ id: string; name: string }> {
  const name = `Command ${randomUUID().slice(0, 8)}`;
  const person = await lane.build.buildPerson(lane.orgId, { email: `command-${randomUUID().slice(0, 8)}@example.com`, name, role, department: "QA" });
  return { id: person.id, name: person.name };
}

/** An admin's session with one stored question (nothing queued), as a turn leaves it. */
export async function adminSession(lane: CommandLane, adminId: string): Promise<{ sessionId: string; turnId: string }> {
  const turnId = randomUUID();
  const stored = await storeQuestion(
    lane.deps.db,
    { orgId: lane.orgId, userId: adminId },
    { sessionId: undefined, agentType: "admin", title: "commands", sessionContext: undefined, turnId, content: "deactivate someone", metadata: {} },
  );
  return { sessionId: stored!.sessionId, turnId };
}

/** A pending deactivation of `target`, proposed in the admin's session. */
export async function pendingDeactivation(lane: CommandLane, adminId: string, target: { id: string; name: string }): Promise<AdminActionRow> {
  const { sessionId, turnId } = await adminSession(lane, adminId);
  const items: NewActionItem[] = [
    { target: { user_id: target.id }, label: `${target.name}: deactivate`, before: { is_active: true }, after: { is_active: false } },
  ];
  return proposeAction(
    { db: lane.deps.db },
    {
      orgId: lane.orgId,
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
export async function refusingProducer(lane: CommandLane): Promise<JobProducer> {
  const log = lane.deps.log;
  const producer = new JobProducer(createRedis(redisTargetOf(lane.config), "producer", log), log);
  await producer.queue("admin-actions").disconnect();
  return producer;
}

export async function actionEvents(lane: CommandLane, actionId: string): Promise<Array<{ event: string; status?: string; by?: string }>> {
  await lane.deps.events.flushed();
  const logged = await lane.deps.events.readStream({ kind: "action", id: actionId }, 0);
  return logged.map(({ event, payload }) => {
    const { status, by } = payload as { status?: string; by?: string };
    return { event, ...(status ? { status } : {}), ...(by ? { by } : {}) };
  });
}
