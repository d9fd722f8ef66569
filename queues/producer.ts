/**
 * The typed way to put work on the queues. The server and workers enqueue only through
 * here, so every job is validated against its schema and gets its queue's default options.
 */
import { Queue, type JobsOptions } from "bullmq";
import { ReplyError, type Redis } from "ioredis";
import type { Logger } from "pino";
import {
  adminActionJobId,
  adminPlanJobId,
  ingestStageJobId,
  attachmentJobId,
  catalogImportJobId,
  orgDeleteJobId,
  personEraseJobId,
  personExportJobId,
  summaryJobId,
  TUTOR_TURN_JOB_NAME,
  tutorTurnJobId,
  type IngestStageQueue,
} from "./job-ids";
import { FairShare, type FairQueue } from "./fair-share";
import { JOB_OPTIONS } from "./job-options";
import { copiesOf, queuePrefix, shardOfAction, shardOfSession, SINGLE_LAYOUT, type QueueLayout } from "./layout";
import { QUEUE_NAMES, type QueueName } from "./names";
import { queueTelemetry } from "./telemetry";
import {
  payloadSchemas,
  type AdminActionPayload,
  type AdminTurnPayload,
  type CatalogImportPayload,
  type ChatAttachmentPayload,
  type IngestPayload,
  type MaintenanceTask,
  type OrgDeletePayload,
  type PersonDataPayload,
  type PayloadOf,
  type SummarisePayload,
  type TutorTurnPayload,
} from "./payloads";

/** A chat turn as the queues know it: its session picks the queue copy its jobs are in. */
export interface QueuedTurn {
  sessionId: string;
  turnId: string;
}

/** How long a turn's enqueue keeps trying while Redis does not answer (a failover, a reconnect), and its pause between tries. */
const TURN_ENQUEUE_RETRY_MS = 3_000;
const TURN_ENQUEUE_PAUSE_MS = 200;

export class JobProducer {
  private readonly queues = new Map<string, Queue>();
  private readonly log: Logger;
  private readonly fair: FairShare;

  /** `log` is the owning process's logger; queue errors are written to it as `component: "queues"`. */
  constructor(
    private readonly connection: Redis,
    log: Logger,
    readonly layout: QueueLayout = SINGLE_LAYOUT,
    fair?: FairShare,
  ) {
    this.log = log.child({ component: "queues" });
    this.fair = fair ?? new FairShare(connection);
  }

  /** The organisation's fair place on copy `shard` of `queue` (queues/fair-share.ts), as a BullMQ priority. */
  private fairPriority(queue: FairQueue, shard: number, orgId: string, cost = 1): Promise<number> {
    return this.fair.priorityFor(queuePrefix(this.layout, queue, shard), queue, orgId, cost);
  }

  /** Copy `shard` of a queue (see queues/layout.ts); queues with one copy have only 0. */
  queue(name: QueueName, shard = 0): Queue {
    const key = `${name}#${shard}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.connection,
        prefix: queuePrefix(this.layout, name, shard),
        defaultJobOptions: JOB_OPTIONS[name],
        ...queueTelemetry(),
      });
      // Without a listener BullMQ prints every connection error to the console.
      queue.on("error", (error) => this.log.warn({ err: error, queue: name, shard }, "queue error"));
      this.queues.set(key, queue);
    }
    return queue;
  }

  /** Every copy of every queue, for Bull Board and metrics. */
  allQueues(): Queue[] {
    return this.allCopies().map(({ queue, shard }) => this.queue(queue, shard));
  }

  /** Every (queue, copy) pair, for workers and Bull Board. */
  allCopies(): Array<{ queue: QueueName; shard: number }> {
    return QUEUE_NAMES.flatMap((queue) => Array.from({ length: copiesOf(this.layout, queue) }, (_, shard) => ({ queue, shard })));
  }

  async enqueue<Q extends QueueName>(name: Q, payload: PayloadOf<Q>, options: JobsOptions = {}, shard = 0): Promise<string> {
    const data = payloadSchemas[name].parse(payload);
    const job = await this.queue(name, shard).add(name, data, { ...JOB_OPTIONS[name], ...options });
    return job.id!;
  }

  /**
   * One tutor turn as one job: its worker runs classify → retrieve → generate in process and
   * reports each stage (workers/tutor/stage-report.ts). A three-job flow cost about 150 Redis
   * commands and two hand-offs of 2.5–6 ms per turn in BullMQ's bookkeeping (bench/optimisations.md
   * §11); stage results are kept under the turn's key tag instead, so a redelivered job resumes at
   * the stage that was running. The job id derived from the turn id makes a second submission of
   * the same turn a no-op.
   */
  async enqueueTutorTurn(payload: TutorTurnPayload): Promise<void> {
    const data = payloadSchemas["tutor-generate"].parse(payload);
    const shard = shardOfSession(this.layout, data.sessionId);
    await this.acrossReconnect(async () => {
      await this.queue("tutor-generate", shard).add(TUTOR_TURN_JOB_NAME, data, {
        ...JOB_OPTIONS["tutor-generate"],
        jobId: tutorTurnJobId(data.turnId),
        priority: await this.fairPriority("tutor-generate", shard, data.orgId),
      });
    });
  }

  /** One admin turn, fair-queued; the job id derived from the turn makes a second submission a no-op. */
  async enqueueAdminTurn(payload: AdminTurnPayload): Promise<void> {
    const data = payloadSchemas["admin-plan"].parse(payload);
    const shard = shardOfSession(this.layout, data.sessionId);
    await this.acrossReconnect(async () => {
      const priority = await this.fairPriority("admin-plan", shard, data.orgId);
      await this.enqueue("admin-plan", data, { jobId: adminPlanJobId(data.turnId), priority }, shard);
    });
  }

  /**
   * A turn's enqueue, tried again while the connection is what failed (no reply from Redis) for up
   * to TURN_ENQUEUE_RETRY_MS: a producer gives up after one reconnect attempt, and behind Sentinel
   * the server's connection can still be on its way to a just-promoted master when an employee
   * sends the next message, which then got a 503 for a failover that was over a moment later. The
   * job id derived from the turn makes a second submission a no-op; a first try that did land only
   * moves the organisation's fair clock one turn on (queues/fair-share.ts). An error Redis replied
   * with is final, and so is a connection closed on purpose.
   */
  private async acrossReconnect(enqueue: () => Promise<void>): Promise<void> {
    const deadline = performance.now() + TURN_ENQUEUE_RETRY_MS;
    for (;;) {
      try {
        await enqueue();
        return;
      } catch (error) {
        // A connection closed for good (status "end") will not come back: no point waiting for it.
        const final = error instanceof ReplyError || this.connection.status === "end";
        if (final || performance.now() + TURN_ENQUEUE_PAUSE_MS > deadline) throw error;
        this.log.warn({ err: error }, "a turn's enqueue found no Redis connection; trying again");
        await new Promise((resolve) => setTimeout(resolve, TURN_ENQUEUE_PAUSE_MS));
      }
    }
  }

  /**
   * Where a turn's last stage stands (`tutor-generate` or `admin-plan`): `failed` or `completed`
   * means the turn has ended; `unknown` when the job is gone (removed, or never queued).
   */
  async turnFinalStageState(agentType: "tutor" | "admin", turn: QueuedTurn): Promise<string> {
    const shard = shardOfSession(this.layout, turn.sessionId);
    return agentType === "tutor"
      ? this.queue("tutor-generate", shard).getJobState(tutorTurnJobId(turn.turnId))
      : this.queue("admin-plan", shard).getJobState(adminPlanJobId(turn.turnId));
  }

  /** One run of a confirmed action; each run (first, resumes) has its own job id. */
  async enqueueAdminAction(payload: AdminActionPayload): Promise<void> {
    await this.enqueue("admin-actions", payload, { jobId: adminActionJobId(payload.actionId, payload.run) }, shardOfAction(this.layout, payload.actionId));
  }

  /**
   * The jobs that carry one chat turn, by the ids given them above: what the lost-turn sweep
   * asks BullMQ about before it declares a turn lost: a tutor turn's `-generate` job, an admin turn's `-admin-plan` job.
   */
  turnJobs(agentType: "tutor" | "admin", turn: QueuedTurn): Array<{ queue: QueueName; shard: number; jobId: string }> {
    const shard = shardOfSession(this.layout, turn.sessionId);
    if (agentType === "admin") return [{ queue: "admin-plan", shard, jobId: adminPlanJobId(turn.turnId) }];
    return [{ queue: "tutor-generate", shard, jobId: tutorTurnJobId(turn.turnId) }];
  }

  /**
   * One stage of a document's (re)index run, fair-queued by organisation, under the run's job id,
   * so a redelivered stage cannot queue the next one twice. `cost` (≥ 1) is how many turns of the
   * organisation's fair share the job takes (embedding batches for `ingest-embed`).
   */
  async enqueueIngestStage(queue: IngestStageQueue, payload: IngestPayload, cost = 1): Promise<void> {
    const priority = await this.fairPriority(queue, 0, payload.orgId, cost);
    await this.enqueue(queue, payload, { jobId: ingestStageJobId(queue, payload), priority });
  }

  /** A session summary refresh for the `due` coverage point: concurrent turns cannot queue the same refresh twice. */
  async enqueueSummary(payload: SummarisePayload, due: number): Promise<void> {
    await this.enqueue("chat-summarise", payload, { jobId: summaryJobId(payload.sessionId, due) });
  }

  /** One run of an organisation's deletion; the run number keeps a re-queued deletion's job id new. */
  async enqueueOrgDeletion(payload: OrgDeletePayload): Promise<void> {
    await this.enqueue("org-delete", payload, { jobId: orgDeleteJobId(payload.deletionId, payload.run) });
  }

  /**
   * A received bulk catalog import, to be split and applied, fair-queued by organisation: one
   * organisation's imports never queue another's behind them (an import is one unit of its share).
   */
  async enqueueCatalogImport(payload: CatalogImportPayload): Promise<void> {
    const priority = await this.fairPriority("catalog-import", 0, payload.orgId);
    await this.enqueue("catalog-import", payload, { jobId: catalogImportJobId(payload.importId), priority });
  }

  /** A file attached to a tutor conversation, fair-queued by organisation: one organisation's files never queue another's behind them. */
  async enqueueChatAttachment(payload: ChatAttachmentPayload): Promise<void> {
    const priority = await this.fairPriority("chat-attachment", 0, payload.orgId);
    await this.enqueue("chat-attachment", payload, { jobId: attachmentJobId(payload.attachmentId), priority });
  }

  /** A person's export (job name `export`) or one run of their erasure (`erase`), under ids derived from the record. */
  async enqueuePersonData(payload: PersonDataPayload): Promise<void> {
    const data = payloadSchemas["person-data"].parse(payload);
    const jobId = data.kind === "export" ? personExportJobId(data.exportId) : personEraseJobId(data.erasureId, data.run);
    await this.queue("person-data").add(data.kind, data, { ...JOB_OPTIONS["person-data"], jobId });
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
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
