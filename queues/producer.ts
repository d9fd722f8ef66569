/**
 * The typed way to put work on the queues. The server and workers enqueue only through
 * here, so every job is validated against its schema and gets its queue's default options.
 */
import { FlowProducer, Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { componentLogger } from "../lib/logger";
import { adminActionJobId, adminPlanJobId, ingestStageJobId, summaryJobId, TUTOR_STAGE_QUEUES, tutorStageJobId, type IngestStageQueue } from "./job-ids";
import { JOB_OPTIONS } from "./job-options";
import { QUEUE_NAMES, QUEUE_PREFIX, type QueueName } from "./names";
import {
  payloadSchemas,
  type AdminActionPayload,
  type AdminTurnPayload,
  type IngestPayload,
  type MaintenanceTask,
  type PayloadOf,
  type SummarisePayload,
  type TutorTurnPayload,
} from "./payloads";

export class JobProducer {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly log = componentLogger("queues");
  private readonly flows: FlowProducer;

  constructor(private readonly connection: Redis) {
    this.flows = new FlowProducer({ connection, prefix: QUEUE_PREFIX });
    this.flows.on("error", (error) => this.log.warn({ err: error }, "flow producer error"));
  }

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: QUEUE_PREFIX, defaultJobOptions: JOB_OPTIONS[name] });
      // Without a listener BullMQ prints every connection error to the console.
      queue.on("error", (error) => this.log.warn({ err: error, queue: name }, "queue error"));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Every queue, for Bull Board and metrics. */
  allQueues(): Queue[] {
    return QUEUE_NAMES.map((name) => this.queue(name));
  }

  async enqueue<Q extends QueueName>(name: Q, payload: PayloadOf<Q>, options: JobsOptions = {}): Promise<string> {
    const data = payloadSchemas[name].parse(payload);
    const job = await this.queue(name).add(name, data, { ...JOB_OPTIONS[name], ...options });
    return job.id!;
  }

  /**
   * One tutor turn as a BullMQ flow: classify → retrieve → generate, added atomically.
   * Children run first and the parent starts only when they complete, so a crash between
   * stages resumes at the stage that was running; job ids derived from the turn id make a
   * second submission of the same turn a no-op.
   */
  async enqueueTutorTurn(payload: TutorTurnPayload): Promise<void> {
    const data = payloadSchemas["tutor-generate"].parse(payload);
    const child = { failParentOnFailure: true };
    await this.flows.add({
      name: "tutor-generate",
      queueName: "tutor-generate",
      data,
      opts: { ...JOB_OPTIONS["tutor-generate"], jobId: tutorStageJobId("tutor-generate", data.turnId) },
      children: [
        {
          name: "tutor-retrieve",
          queueName: "tutor-retrieve",
          data,
          opts: { ...JOB_OPTIONS["tutor-retrieve"], ...child, jobId: tutorStageJobId("tutor-retrieve", data.turnId) },
          children: [
            {
              name: "tutor-classify",
              queueName: "tutor-classify",
              data,
              opts: { ...JOB_OPTIONS["tutor-classify"], ...child, jobId: tutorStageJobId("tutor-classify", data.turnId) },
            },
          ],
        },
      ],
    });
  }

  /** One admin turn; the job id derived from the turn makes a second submission a no-op. */
  async enqueueAdminTurn(payload: AdminTurnPayload): Promise<void> {
    await this.enqueue("admin-plan", payload, { jobId: adminPlanJobId(payload.turnId) });
  }

  /**
   * Where a turn's last stage stands (`tutor-generate` or `admin-plan`): `failed` or `completed`
   * means the turn has ended; `unknown` when the job is gone (removed, or never queued).
   */
  async turnFinalStageState(agentType: "tutor" | "admin", turnId: string): Promise<string> {
    return agentType === "tutor"
      ? this.queue("tutor-generate").getJobState(tutorStageJobId("tutor-generate", turnId))
      : this.queue("admin-plan").getJobState(adminPlanJobId(turnId));
  }

  /** One run of a confirmed action; each run (first, resumes) has its own job id. */
  async enqueueAdminAction(payload: AdminActionPayload): Promise<void> {
    await this.enqueue("admin-actions", payload, { jobId: adminActionJobId(payload.actionId, payload.run) });
  }

  /**
   * The jobs that carry one chat turn, by the ids given them above: what the lost-turn sweep
   * asks BullMQ about before it declares a turn lost.
   */
  turnJobs(agentType: "tutor" | "admin", turnId: string): Array<{ queue: QueueName; jobId: string }> {
    if (agentType === "admin") return [{ queue: "admin-plan", jobId: adminPlanJobId(turnId) }];
    return TUTOR_STAGE_QUEUES.map((queue) => ({ queue, jobId: tutorStageJobId(queue, turnId) }));
  }

  /** One stage of a document's (re)index run, under the run's job id, so a redelivered stage cannot queue the next one twice. */
  async enqueueIngestStage(queue: IngestStageQueue, payload: IngestPayload, options: Pick<JobsOptions, "priority"> = {}): Promise<void> {
    await this.enqueue(queue, payload, { ...options, jobId: ingestStageJobId(queue, payload) });
  }

  /** A session summary refresh for the `due` coverage point: concurrent turns cannot queue the same refresh twice. */
  async enqueueSummary(payload: SummarisePayload, due: number): Promise<void> {
    await this.enqueue("chat-summarise", payload, { jobId: summaryJobId(payload.sessionId, due) });
  }

  /**
   * Registers (or retimes) the periodic sweeps as BullMQ job schedulers on the `maintenance`
   * queue. Upserting by a fixed id makes every worker's start-up call the same one schedule,
   * however many workers serve the queue, and Bull Board shows it with its next run.
   */
  async scheduleMaintenance(everyMs: Record<MaintenanceTask, number>): Promise<void> {
    for (const [task, every] of Object.entries(everyMs) as Array<[MaintenanceTask, number]>) {
      await this.queue("maintenance").upsertJobScheduler(task, { every }, { name: task, data: payloadSchemas.maintenance.parse({ task }) });
    }
  }

  async close(): Promise<void> {
    await this.flows.close();
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
