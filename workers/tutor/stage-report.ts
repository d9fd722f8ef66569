/**
 * How a tutor turn's stages show themselves inside its one `tutor-generate` job (which
 * classifies, retrieves and generates in process): each stage gets a
 * `stage started` / `stage completed` / `stage failed` log line carrying the job's ids and the
 * stage name, the job's progress names the generate stage once it starts and a stage that failed (Bull Board shows it), and the
 * classify and retrieve stages report their attempts to /metrics under the labels `tutor-classify`
 * and `tutor-retrieve` (queues/events/job-events.ts), beside the whole job's `tutor-generate`.
 * A failure is tagged with the stage it happened in: the failure hook decides by it whether the
 * client must hear about a retry, and a failed job's log in Bull Board names the stage.
 */
import { UnrecoverableError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { publishJobEnd } from "../../queues/events/job-events";
import type { StageMetricLabel } from "../../queues/events/job-events";
import { inSpan } from "../../lib/telemetry/spans";
import { jobFailureCode } from "../job-outcome";

export type TutorStage = "classify" | "retrieve" | "generate";

/** The /metrics label of each stage before generation; generate's attempts are the whole job's (host.ts). */
const STAGE_METRIC_LABEL: Partial<Record<TutorStage, StageMetricLabel>> = { classify: "tutor-classify", retrieve: "tutor-retrieve" };

const failedStages = new WeakMap<object, TutorStage>();

/** The stage an error escaped from, when it came out of a turn's stages. */
export function failedStage(error: unknown): TutorStage | undefined {
  return typeof error === "object" && error !== null ? failedStages.get(error) : undefined;
}

/** What a turn's job attempt knows while it runs its stages. */
export interface StageRun {
  job: Job;
  redis: Redis;
  log: Logger;
}

export class TurnStages {
  /** A turn starts by classifying: what fails before the first stage (its start-up reads) belongs to it. */
  private current: TutorStage = "classify";

  constructor(private readonly run: StageRun) {}

  /** Runs one stage, reporting its start and end; a failure leaves tagged with the stage. */
  async stage<T>(stage: TutorStage, work: () => Promise<T>): Promise<T> {
    // A span per stage (its queries, commands and model calls nest under it): the stage adds what it found (stages.ts).
    const attributes = { "skillnet.stage": stage, "skillnet.turn_id": String(this.run.job.data?.turnId ?? "") };
    return inSpan(`tutor.${stage}`, { attributes }, () => this.reported(stage, work));
  }

  private async reported<T>(stage: TutorStage, work: () => Promise<T>): Promise<T> {
    const { job, redis, log } = this.run;
    this.current = stage;
    const started = performance.now();
    // Progress costs five Redis commands (BullMQ's script: EXISTS, HGET, HSET, XADD): written only where a turn
    // spends nearly all its time, the model's stream, so an active job without progress is classifying or
    // retrieving (tens of ms). Fire and forget: it is for people watching Bull Board, never on the turn's path.
    if (stage === "generate") job.updateProgress({ stage }).catch(() => undefined);
    log.info({ stage }, "stage started");
    const queue = STAGE_METRIC_LABEL[stage];
    try {
      const result = await work();
      const ms = Math.round(performance.now() - started);
      log.info({ stage, ms }, "stage completed");
      if (queue) publishJobEnd(redis, { queue, outcome: "completed", durationMs: ms });
      return result;
    } catch (error) {
      const ms = Math.round(performance.now() - started);
      const willRetry = !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      log.warn({ stage, ms, err: error, willRetry }, "stage failed");
      if (queue) publishJobEnd(redis, { queue, outcome: "failed", willRetry, durationMs: ms, errorCode: jobFailureCode(error) });
      throw this.tagged(error);
    }
  }

  /** Runs the attempt: anything thrown outside a stage (start-up reads) belongs to the stage the turn is in. */
  async attempt<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.tagged(error);
    }
  }

  private tagged(error: unknown): unknown {
    if (typeof error !== "object" || error === null || failedStages.has(error)) return error;
    failedStages.set(error, this.current);
    // Bull Board's log of the job says which stage failed (failures only: a log line is a Redis write).
    const message = error instanceof Error ? error.message : String(error);
    this.run.job.log(`${this.current} failed: ${message}`).catch(() => undefined);
    this.run.job.updateProgress({ stage: this.current, failed: true }).catch(() => undefined);
    return error;
  }
}
