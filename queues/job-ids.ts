/**
 * Every job id the product gives a job, in one place. Ids are derived from what the job is
 * about (a turn, a document's run, an action's run), so a second submission of the same work
 * is a no-op in BullMQ and the lost-turn sweep can find a turn's jobs without a lookup.
 */
import type { QueueName } from "./names";

export type IngestStageQueue = Extract<QueueName, `ingest-${string}`>;

/** The BullMQ job name of a tutor turn (`tutor-generate` queue): its worker classifies, retrieves and generates in process. */
export const TUTOR_TURN_JOB_NAME = "tutor-turn";

/** `<turnId>-generate`: the one job of a tutor turn. */
export const tutorTurnJobId = (turnId: string): string => `${turnId}-generate`;

/** `<turnId>-admin-plan`: the one job of an admin turn. */
export const adminPlanJobId = (turnId: string): string => `${turnId}-admin-plan`;

/** `<actionId>-run-<n>`: each run of a confirmed action (the first, then each resume) is its own job. */
export const adminActionJobId = (actionId: string, run: number): string => `${actionId}-run-${run}`;

/** `<documentId>-g<generation>-extract|chunk|embed`: one per stage of one (re)index run. */
export const ingestStageJobId = (queue: IngestStageQueue, run: { documentId: string; generation: number }): string =>
  `${run.documentId}-g${run.generation}-${queue.slice("ingest-".length)}`;

/** `<sessionId>-summary-<n>`: one refresh per due point, so retries of a turn don't queue it twice. */
export const summaryJobId = (sessionId: string, due: number): string => `${sessionId}-summary-${due}`;

/** `<exportId>-export`: one job per export record, so asking twice cannot build it twice. */
export const personExportJobId = (exportId: string): string => `${exportId}-export`;

/** `<erasureId>-erase-<n>`: each queuing of a person's erasure (a failed one queued again is a new run); never the person's id. */
export const personEraseJobId = (erasureId: string, run: number): string => `${erasureId}-erase-${run}`;

/** `<deletionId>-run-<n>`: each queuing of an organisation's deletion (a failed one queued again is a new run). Never the org id: no key left behind names it. */
export const orgDeleteJobId = (deletionId: string, run: number): string => `${deletionId}-run-${run}`;

/** One job per import: a repeated enqueue of the same import is a no-op. */
export const catalogImportJobId = (importId: string): string => `import-${importId}`;

/** `attachment-<id>`: one reading per attached file, so a redelivered upload cannot read it twice. */
export const attachmentJobId = (attachmentId: string): string => `attachment-${attachmentId}`;
