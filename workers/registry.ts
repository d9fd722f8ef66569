/**
 * The handler registry: one handler per queue. Start-up fails when a served queue has no
 * handler or a queue has two, rather than letting jobs pile up unprocessed.
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

export interface JobHandler<Q extends QueueName = QueueName> {
  queue: Q;
  perform(context: JobContext<Q>): Promise<unknown>;
  /** Called once when the job will not be retried again (last attempt, or unrecoverable). */
  onFinalFailure?(context: JobContext<Q>, error: unknown): Promise<void>;
  /** Called on every failed attempt, before BullMQ decides about a retry. */
  onAttemptFailed?(context: JobContext<Q>, error: unknown, willRetry: boolean): Promise<void>;
}

export function defineHandler<Q extends QueueName>(handler: JobHandler<Q>): JobHandler<Q> {
  return handler;
}

export function buildRegistry(handlers: JobHandler[], served: QueueName[]): Map<QueueName, JobHandler> {
  const registry = new Map<QueueName, JobHandler>();
  for (const handler of handlers) {
    if (registry.has(handler.queue)) throw new Error(`Two handlers registered for queue "${handler.queue}"`);
    registry.set(handler.queue, handler);
  }
  const missing = served.filter((queue) => !registry.has(queue));
  if (missing.length > 0) throw new Error(`No handler registered for queue(s): ${missing.join(", ")}`);
  return registry;
}
