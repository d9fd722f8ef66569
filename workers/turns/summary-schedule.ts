/**
 * Decides after a turn — tutor or admin — whether the session's summary needs refreshing, and
 * queues it if so (`chat-summarise`, off the critical path).
 */
import { countUserMessages } from "../../db/queries/chat-messages";
import { findSessionInOrg } from "../../db/queries/chat-sessions";
import type { SummarisePayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { summaryDue } from "./history";

export async function scheduleSummaryIfDue(deps: WorkerDeps, data: SummarisePayload): Promise<boolean> {
  const session = await findSessionInOrg(deps.db, data.orgId, data.sessionId);
  if (!session) return false;
  const due = summaryDue(await countUserMessages(deps.db, data.orgId, data.sessionId), session.summary_turn_count, Boolean(session.summary));
  if (due === null) return false;
  await deps.producer.enqueueSummary({ orgId: data.orgId, sessionId: data.sessionId, turnId: data.turnId }, due);
  return true;
}
