/**
 * A worker process: which queues it serves, how many jobs at once, and how BullMQ hands a dead worker's jobs on.
 */
import { z } from "zod";
import { defineSection } from "../lib/settings-section";

/** `WORKER_QUEUES=all` or `tutor-generate:50,ingest-embed:2` (concurrency optional). */
const workerQueues = z
  .string()
  .trim()
  .regex(/^(all|[a-z-]+(:\d+)?(,[a-z-]+(:\d+)?)*)$/, "use 'all' or a list like 'tutor-generate:4,ingest-embed:2'");

export const workerSettings = defineSection({
  environment: {
    WORKER_QUEUES: workerQueues
      .default("all")
      .describe("Queues this worker process serves: `all`, or a list like `tutor-generate:50,chat-summarise:2` (`:N` sets its concurrency)."),
    WORKER_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(500)
      .default(4)
      .describe(
        "Concurrency for each served queue that names none, except the model-bound `tutor-generate` and `admin-plan` " +
          "(`WORKER_MODEL_CONCURRENCY`). Sweeps, content gaps, organisation deletions and person data run one job at a time under `all`.",
      ),
    WORKER_MODEL_CONCURRENCY: z
      .preprocess((value) => (value === "" ? undefined : value), z.coerce.number().int().min(1).max(2_000).optional())
      .describe(
        "Concurrency of `tutor-generate` and `admin-plan` when `WORKER_QUEUES` names none for them. Unset, it follows the load: up to a " +
          "ceiling from the heap limit (half the heap at 4 MiB per streaming answer, at most 500 per process for the two queues together, either taking what the other leaves), " +
          "lowered below what is running while the event loop lags past `WORKER_LAG_TARGET_MS` and raised again once it does not. " +
          "A number fixes it, without adaptation.",
      ),
  },
  why: {
    WORKER_QUEUES: "Split roles across processes: e.g. a worker that only ingests, on machines of its own.",
    WORKER_CONCURRENCY: "Give a worker more (or fewer) parallel jobs for its cores and database connections.",
    WORKER_MODEL_CONCURRENCY: "Fix the number of streaming answers per worker instead of following the load (e.g. a model server with a hard limit).",
  },
  tunables: {
    // BullMQ's lock and stall timings hand a dead worker's job on within ~20 s (docs/reliability.md); the
    // lag target and the token frame were measured in bench/optimisations.md ("Token frames", the load follower).
    WORKER_LAG_TARGET_MS: z.coerce
      .number()
      .int()
      .min(5)
      .max(1_000)
      .default(20)
      .describe(
        "Event-loop delay (the mean over half a second) above which a worker takes no new model-bound jobs until what runs drops below its " +
          "lowered limit; they stay queued for other workers. Under half of it the limit climbs back. Only queues whose concurrency follows " +
          "the load (`WORKER_MODEL_CONCURRENCY` unset, no `:N`).",
      ),
    FAIR_RESERVED_SLOTS: z.coerce
      .number()
      .int()
      .min(0)
      .max(16)
      .default(1)
      .describe(
        "Extra worker slots per copy of each organisation-fair queue (`tutor-generate`, `admin-plan`, `ingest-*`, `catalog-import`), on top of its concurrency, " +
          "that take only a job of an organisation running fewer than 2 of that queue's jobs in the process: another organisation's turn " +
          "starts at once even while one organisation's streams hold every other slot (see [security](security.md#fair-queues-between-organisations)). `0` turns the reserve off.",
      ),
    STREAM_FRAME_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(200)
      .default(40)
      .describe(
        "While a worker streams more than 16 answers at once, each answer's tokens leave it at most once per this many ms: its first token, " +
          "and any after a quiet spell, at once; the tokens that come within a frame travel together, as one log entry, one message and one " +
          "socket write. At 50 tokens/s the default halves the work per token for at most one token gap (20 ms) of added lag; a worker " +
          "streaming fewer answers sends every token at once. `0` sends every token on its own.",
      ),
    WORKER_LOCK_DURATION_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(10_000)
      .describe(
        "BullMQ job lock, renewed every half of it while the worker lives. A dead worker's job is handed on within lock + 2 × stalled " +
          "interval (≈ 20 s by default). A worker whose event loop is blocked longer than this loses its jobs: keep it above a few seconds.",
      ),
    WORKER_STALLED_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(500)
      .default(5_000)
      .describe("How often each worker looks for stalled jobs (jobs whose worker died) and hands them back."),
    WORKER_MAX_STALLED_COUNT: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .default(2)
      .describe("Times a job may be handed back after its worker died before it fails for good (its final-failure hook runs)."),
    WORKER_DRAIN_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5_000)
      .describe(
        "On SIGTERM a worker lets its active jobs finish for this long, then hands the rest back to their queues for another worker " +
          "(`0` = hand back at once). See [operations](operations.md#shutdown-and-deploys).",
      ),
    WORKER_DATABASE_PAUSE_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(2_000)
      .describe("While Postgres is unreachable a job is put back for this long (no attempt used) instead of failing; it resumes when the database returns."),
    TURN_DEADLINE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(5 * 60_000)
      .describe(
        "A turn with no answer and no live job this long (5 min) after it was accepted is failed with `TURN_LOST` and a `failed` message " +
          "(longer than a slow model's full answer; see [reliability](reliability.md)).",
      ),
    TURN_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(500)
      .default(30_000)
      .describe("How often the `maintenance` queue's job scheduler looks for lost turns."),
  },
});
