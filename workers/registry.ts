/**
 * What a job handler is, and the map of them: one handler per queue. The map is typed against
 * the queue list, so a queue without a handler (or a handler filed under another queue's name)
 * fails type-checking rather than letting jobs pile up unprocessed.
 */
import type { Job } from "bullmq";
import type { Logger } from "pino";
import type { QueueName } from "../queues/names";
import type { PayloadOf } from "../queues/payloads";
import type { WorkerDeps } from "./deps";

export interface JobContext<Q extends QueueName> {
  job: Job<PayloadOf<Q>>;
  data: PayloadOf<Q>;
  deps: WorkerDeps;
  log: Logger;
}

/** How a failure ended: `final` when BullMQ will not run the job again (last attempt, unrecoverable, or stalled out). */
export interface FailureOutcome {
  final: boolean;
}

export interface JobHandler<Q extends QueueName = QueueName> {
  queue: Q;
  perform(context: JobContext<Q>): Promise<unknown>;
  /**
   * The stage's one failure hook: called after every failed attempt (before BullMQ retries it)
   * and once for a job that stalled out, where no attempt failed. A stage that reacts to
   * retries handles the final failure in the same place, so it cannot have one without the other.
   */
  onFailed?(context: JobContext<Q>, error: unknown, outcome: FailureOutcome): Promise<void>;
}

/** Every queue mapped to the handler that serves it. */
export type HandlerMap = { [Q in QueueName]: JobHandler<Q> };

export function defineHandler<Q extends QueueName>(handler: JobHandler<Q>): JobHandler<Q> {
  return handler;
}

/** The handler of one queue, typed for that queue. */
export function handlerFor<Q extends QueueName>(handlers: HandlerMap, queue: Q): JobHandler<Q> {
  return handlers[queue];
}
