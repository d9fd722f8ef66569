/**
 * Every job id the product gives a job, in one place. Ids are derived from what the job is
 * about (a turn, a document's run, an action's run), so a second submission of the same work
 * is a no-op in BullMQ and the lost-turn sweep can find a turn's jobs without a lookup.
 */
import type { QueueName } from "./names";

export type TutorStageQueue = Extract<QueueName, `tutor-${string}`>;
export type IngestStageQueue = Extract<QueueName, `ingest-${string}`>;

export const TUTOR_STAGE_QUEUES: readonly TutorStageQueue[] = ["tutor-classify", "tutor-retrieve", "tutor-generate"];

/**
 * The BullMQ job name of a tutor turn queued as one job (`tutor-generate` queue, id
 * `<turnId>-generate`): its worker classifies, retrieves and generates in process. A turn queued
 * by an earlier release is a three-job flow whose parent is named `tutor-generate`.
 */
export const TUTOR_TURN_JOB_NAME = "tutor-turn";

/** `<turnId>-classify`, `-retrieve`, `-generate`: the turn's one job is `-generate`; the other two exist only in flows queued by an earlier release. */
export const tutorStageJobId = (queue: TutorStageQueue, turnId: string): string => `${turnId}-${queue.slice("tutor-".length)}`;

/** `<turnId>-admin-plan`: the one job of an admin turn. */
export const adminPlanJobId = (turnId: string): string => `${turnId}-admin-plan`;

/** `<actionId>-run-<n>`: each run of a confirmed action (the first, then each resume) is its own job. */
export const adminActionJobId = (actionId: string, run: number): string => `${actionId}-run-${run}`;

/** `<documentId>-g<generation>-extract|chunk|embed`: one per stage of one (re)index run. */
export const ingestStageJobId = (queue: IngestStageQueue, run: { documentId: string; generation: number }): string =>
  `${run.documentId}-g${run.generation}-${queue.slice("ingest-".length)}`;

/** `<sessionId>-summary-<n>`: one refresh per due point, so retries of a turn don't queue it twice. */
export const summaryJobId = (sessionId: string, due: number): string => `${sessionId}-summary-${due}`;
