/**
 * The `chat-retention` sweep: for each organisation with a retention (`PUT /api/v1/admin/retention`),
 * deletes the chat sessions idle for longer, oldest first, RETENTION_SWEEP_BATCH_SESSIONS per
 * transaction (db/queries/chat-retention.ts), after their turns' Redis keys (checkpoints, cancel
 * flag, event log, latest turn): keys first, so a run killed in between leaves rows whose keys
 * are gone, which the next run deletes, never keys nobody will look for again.
 *
 * A run does at most RETENTION_BATCHES_PER_RUN batches per organisation, so one organisation's
 * first sweep over years of chats never holds the `maintenance` queue (lost turns, stuck
 * documents) for long; its sweep stays open and the next run goes on, adding to the same totals.
 */
import { closeSweep, deleteExpiredSessions, expiredSessions, openSweep, organisationsToSweep } from "../../db/queries/chat-retention";
import { removeChatKeys } from "../../queues/org-purge";
import type { WorkerDeps } from "../deps";

export const RETENTION_BATCHES_PER_RUN = 20;
const DAY_MS = 86_400_000;

export interface RetentionSweep {
  organisations: number;
  /** Organisations whose sweep ran out of batches this run (the next run goes on). */
  unfinished: number;
  batches: number;
  sessions: number;
  messages: number;
  redisKeys: number;
  usageRowsUnlinked: number;
  /** The organisations it deleted something of (Bull Board shows them in the job's result). */
  deleted: Array<{ orgId: string; batches: number; sessions: number; messages: number; finished: boolean }>;
}

export async function sweepChatRetention(
  deps: Pick<WorkerDeps, "db" | "redis" | "config">,
  options: { batchSessions?: number; maxBatches?: number } = {},
): Promise<RetentionSweep> {
  const batchSessions = options.batchSessions ?? deps.config.dataLifecycle.RETENTION_SWEEP_BATCH_SESSIONS;
  const maxBatches = options.maxBatches ?? RETENTION_BATCHES_PER_RUN;
  const sweep: RetentionSweep = { organisations: 0, unfinished: 0, batches: 0, sessions: 0, messages: 0, redisKeys: 0, usageRowsUnlinked: 0, deleted: [] };
  for (const { orgId, days } of await organisationsToSweep(deps.db)) {
    sweep.organisations += 1;
    if (days === null) {
      // The setting was cleared while a sweep was open: what it deleted is still reported.
      await closeSweep(deps.db, orgId);
      continue;
    }
    await openSweep(deps.db, orgId);
    const cutoff = new Date(Date.now() - days * DAY_MS);
    const mine = { orgId, batches: 0, sessions: 0, messages: 0, finished: false };
    while (mine.batches < maxBatches && !mine.finished) {
      const batch = await expiredSessions(deps.db, orgId, cutoff, batchSessions);
      if (batch.sessionIds.length > 0) {
        sweep.redisKeys += await removeChatKeys(deps.redis, batch);
        const removed = await deleteExpiredSessions(deps.db, orgId, batch, cutoff);
        mine.batches += 1;
        mine.sessions += removed.sessions;
        mine.messages += removed.messages;
        sweep.usageRowsUnlinked += removed.usageRowsUnlinked;
      }
      mine.finished = batch.sessionIds.length < batchSessions;
    }
    if (mine.finished) await closeSweep(deps.db, orgId);
    else sweep.unfinished += 1;
    sweep.batches += mine.batches;
    sweep.sessions += mine.sessions;
    sweep.messages += mine.messages;
    if (mine.batches > 0) sweep.deleted.push(mine);
  }
  return sweep;
}
