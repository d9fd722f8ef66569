/** Decides after a turn whether the session's summary needs refreshing, and queues it if so. */
import { findSessionInOrg } from "../../db/queries/chat-sessions";
import type { TutorTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { summaryDue } from "./history";

export async function scheduleSummaryIfDue(deps: WorkerDeps, data: TutorTurnPayload): Promise<boolean> {
  const session = await findSessionInOrg(deps.db, data.orgId, data.sessionId);
  if (!session) return false;
  const row = await deps.db("chat_messages").where({ org_id: data.orgId, session_id: data.sessionId, role: "user" }).count<{ count: string }[]>("* as count").first();
  const due = summaryDue(Number(row?.count ?? 0), session.summary_turn_count, Boolean(session.summary));
  if (due === null) return false;
  // One job per coverage target: concurrent turns cannot queue the same refresh twice.
  await deps.producer.enqueue("chat-summarise", { orgId: data.orgId, sessionId: data.sessionId, turnId: data.turnId }, { jobId: `${data.sessionId}-summary-${due}` });
  return true;
}
