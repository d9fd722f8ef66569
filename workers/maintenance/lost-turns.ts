/**
 * The last line of "every accepted turn ends": a turn whose question is stored but which has no
 * answer, no final status and no live job past TURN_DEADLINE_MS is failed with `TURN_LOST`. That
 * covers a job lost with Redis, a job that failed without its final word (its hook could not
 * reach Postgres), and anything else that drops a turn on the floor. A turn whose job is still
 * queued, delayed or running is left alone however old it is: it will still be answered.
 */
import type { JobState } from "bullmq";
import { listUnansweredTurns, type UnansweredTurn } from "../../db/queries/unanswered-turns";
import { withdrawProposals } from "../../commands/withdraw-proposals";
import type { WorkerDeps } from "../deps";
import { failTurn, TurnLostError } from "../turns/stage-failure";

/** States in which a job will still run (or is running); completed, failed and missing jobs will not. */
const LIVE: ReadonlySet<JobState | "unknown"> = new Set(["waiting", "active", "delayed", "prioritized"]);

/** Turns examined per sweep; the rest wait for the next one, oldest first. */
const BATCH = 500;
/** Older turns have nobody left waiting for them, and their event logs have expired. */
const LOOKBACK_MS = 24 * 3600_000;

async function hasLiveJob(deps: WorkerDeps, turn: UnansweredTurn): Promise<boolean> {
  for (const { queue, shard, jobId } of deps.producer.turnJobs(turn.agent_type, { sessionId: turn.session_id, turnId: turn.turn_id })) {
    if (LIVE.has(await deps.producer.queue(queue, shard).getJobState(jobId))) return true;
  }
  return false;
}

/** Fails every lost turn past the deadline; returns how many this sweep ended. */
export async function failLostTurns(deps: WorkerDeps, deadlineMs: number): Promise<number> {
  const candidates = await listUnansweredTurns(deps.db, { olderThanMs: deadlineMs, lookbackMs: Math.max(LOOKBACK_MS, 2 * deadlineMs), limit: BATCH });
  let failed = 0;
  for (const turn of candidates) {
    if (await hasLiveJob(deps, turn)) continue;
    const data = { orgId: turn.org_id, sessionId: turn.session_id, turnId: turn.turn_id };
    const metadata = { swept: true, ...(turn.agent_type === "admin" ? { agent: "admin" as const } : {}) };
    // A lost admin turn's proposal was never shown with its answer: withdrawn, so no later reply can decide it.
    // The admin's open action card hears it too, as it does when a turn is cancelled.
    if (turn.agent_type === "admin") await withdrawProposals(deps, { orgId: turn.org_id, turnId: turn.turn_id }, "the turn that proposed it was lost");
    if (await failTurn(deps, data, new TurnLostError(Date.now() - new Date(turn.created_at).getTime()), metadata)) {
      failed++;
      deps.log.warn(
        { orgId: turn.org_id, sessionId: turn.session_id, turnId: turn.turn_id, agent: turn.agent_type },
        "turn lost: no answer and no live job past the deadline; failed with TURN_LOST",
      );
    }
  }
  return failed;
}
