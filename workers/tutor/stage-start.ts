/**
 * What a tutor stage reads before it does its work — the cancel flag, the results of the stages
 * before it, its turn context — read together rather than one after another: each was its own
 * round trip on the path to the first token (bench/breakdown.md). A cancelled turn wins over a
 * turn that is gone or a context that failed to load, as when the context was read only after
 * the cancel check; the context's own failure (turn gone, database down) is thrown otherwise.
 */
import type { Job } from "bullmq";
import type { TutorTurnPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { cancelledBeforeStage } from "../turns/cancelled-turn";
import { loadTurnContext, type TurnContext } from "./turn-context";

export type StageStart = { cancelled: true } | { cancelled: false; children: Record<string, unknown>; turn: TurnContext };

/** `inFlow`: the job is a stage of a flow (an earlier release's three-job turn), whose earlier stages' results are read too. */
export async function startStage(deps: WorkerDeps, job: Job, data: TutorTurnPayload, inFlow = true): Promise<StageStart> {
  const [gate, turn] = await Promise.allSettled([cancelledBeforeStage(deps, inFlow ? job : undefined, data.turnId), loadTurnContext(deps, data)]);
  const { cancelled, children } = settled(gate);
  if (cancelled) return { cancelled: true };
  return { cancelled: false, children, turn: settled(turn) };
}

/** The value of a settled read, or its error thrown. */
export function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
