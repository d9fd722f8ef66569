/**
 * The one place that reads the environment. Every process (server, worker, scripts) calls
 * `getConfig()`; a bad environment is reported all at once, by variable name, so an operator
 * fixes everything in one pass instead of one restart per typo.
 */
import { z } from "zod";

const optionalString = z
  .string()
  .transform((value) => value.trim())
  .optional()
  .transform((value) => (value === "" ? undefined : value));

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const port = z.coerce.number().int().min(0).max(65535);

/** `WORKER_QUEUES=all` or `tutor-generate:50,ingest-embed:2` (concurrency optional). */
const workerQueues = z
  .string()
  .trim()
  .regex(/^(all|[a-z-]+(:\d+)?(,[a-z-]+(:\d+)?)*)$/, "use 'all' or a list like 'tutor-generate:4,ingest-embed:2'");

export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  HOST: z.string().default("0.0.0.0"),
  PORT: port.default(3000),

  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(8),
  /** Postgres cancels any statement running longer than this (0 = never), so one runaway query cannot hold a pooled connection. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(15_000),
  REDIS_URL: optionalString.pipe(z.url({ protocol: /^rediss?$/ }).optional()),

  LLM_BASE_URL: optionalString.pipe(z.url().optional()),
  LLM_API_KEY: optionalString,
  LLM_MODEL: z.string().trim().min(1).default("offline-extractive"),
  LLM_MODEL_TUTOR: optionalString,
  LLM_MODEL_GENERATION: optionalString,
  LLM_MODEL_EVALUATION: optionalString,
  LLM_MODEL_ADMIN: optionalString,
  LLM_MODEL_INGESTION: optionalString,
  LLM_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** A streaming answer that sends nothing for this long is abandoned (and retried if no text was shown). */
  LLM_STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),

  EMBEDDING_BASE_URL: optionalString.pipe(z.url().optional()),
  EMBEDDING_API_KEY: optionalString,
  EMBEDDING_MODEL: z.string().trim().min(1).default("intfloat/multilingual-e5-small"),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(2).max(4000).default(384),
  /** E5-family models expect `query: ` / `passage: ` prefixes; other models must not get them. */
  EMBEDDING_PREFIXES: booleanFlag.optional(),

  JWT_SECRET: optionalString.pipe(z.string().min(16, "must be at least 16 characters").optional()),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).default(12 * 3600),
  DEV_LOGIN_ENABLED: booleanFlag.default(false),
  /** Longest token lifetime (exp − iat) accepted from any issuer, so a leaked token cannot live for ever. */
  JWT_MAX_TTL_SECONDS: z.coerce.number().int().min(60).default(24 * 3600),
  /** `iss` every token must carry (and dev-login signs with): your identity provider's issuer in production. */
  JWT_ISSUER: z.string().trim().min(1).default("skillnet-chat"),
  /** When set, tokens are issued with this `aud` and tokens without it are refused. */
  JWT_AUDIENCE: optionalString,
  /** dev-login attempts per client IP per sliding 60 s window (it hands out tokens for an email alone). */
  RATE_LIMIT_DEV_LOGIN_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** How often each server node re-checks its sockets' accounts (one query per node) and token expiry. */
  SOCKET_REAUTH_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  /** Behind a reverse proxy: trust X-Forwarded-For/-Proto (client IP for rate limits, HTTPS for Secure cookies). */
  TRUST_PROXY: booleanFlag.default(false),
  /** Lifetime of the single-use code that signs a browser in to Bull Board. */
  BOARD_CODE_TTL_SECONDS: z.coerce.number().int().min(1).max(600).default(60),

  WORKER_QUEUES: workerQueues.default("all"),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(4),

  EVENT_STREAM_TTL_SECONDS: z.coerce.number().int().min(10).default(3600),
  EVENT_STREAM_MAX_EVENTS: z.coerce.number().int().min(100).default(20_000),

  RATE_LIMIT_TUTOR_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** Tutor messages per organisation (all its users together) per minute. */
  RATE_LIMIT_ORG_TUTOR_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Admin assistant turns per organisation per minute. */
  RATE_LIMIT_ORG_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  /** Document uploads per admin per minute. */
  RATE_LIMIT_UPLOADS_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Document uploads per organisation per minute. */
  RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Document re-index requests per admin per minute. */
  RATE_LIMIT_REINDEX_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** Document re-index requests per organisation per minute. */
  RATE_LIMIT_ORG_REINDEX_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** Socket.IO connections (handshakes) per user per minute. */
  RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** Socket `join` calls per user per minute. */
  RATE_LIMIT_SOCKET_JOINS_PER_MINUTE: z.coerce.number().int().min(1).default(120),

  /** An admin action not confirmed within this many seconds expires (its preview may be stale). */
  ADMIN_ACTION_TTL_SECONDS: z.coerce.number().int().min(60).default(24 * 3600),
  /** Tool-calling rounds per admin turn before the model must answer with what it has. */
  ADMIN_MAX_TOOL_ROUNDS: z.coerce.number().int().min(1).max(20).default(5),
  /** Items of a confirmed action applied between two progress events. */
  ADMIN_ACTION_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  /** Pause between batches, to keep a large bulk action from crowding out other database work. */
  ADMIN_ACTION_BATCH_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(0),

  /**
   * BullMQ job lock, renewed every half of it while the worker lives. A dead worker's job is seen
   * as stalled once the lock expires and a stalled check runs: within lock + 2 × interval.
   */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1000).default(10_000),
  /** How often each worker looks for stalled jobs (jobs whose worker died) and hands them back. */
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(5_000),
  /** Times a job may be handed back after its worker died before it fails (its final-failure hook runs). */
  WORKER_MAX_STALLED_COUNT: z.coerce.number().int().min(0).max(10).default(2),
  /** On SIGTERM a worker lets its active jobs finish for this long, then hands the rest back to the queue for another worker (0 = hand back at once). */
  WORKER_DRAIN_MS: z.coerce.number().int().min(0).default(5_000),
  /** A server or worker still closing this long after SIGTERM exits anyway: keep it below the orchestrator's kill timeout (compose 10 s, Kubernetes 30 s). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1000).default(8_000),
  /** While Postgres is unreachable a job is put back for this long (no attempt used) instead of failing; it resumes when the database returns. */
  WORKER_DATABASE_PAUSE_MS: z.coerce.number().int().min(100).default(2_000),
  /** A turn with no answer and no live job this long after it was accepted is failed with TURN_LOST (longer than a slow model's full answer). */
  TURN_DEADLINE_MS: z.coerce.number().int().min(1000).default(5 * 60_000),
  /** How often the `maintenance` queue's scheduler looks for lost turns. */
  TURN_SWEEP_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),

  UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).default(5 * 1024 * 1024),
  CHUNK_STRATEGY: z.enum(["recursive", "markdown", "token"]).default("recursive"),
  CHUNK_TOKENS: z.coerce.number().int().min(50).max(8000).default(400),
  CHUNK_OVERLAP_TOKENS: z.coerce.number().int().min(0).max(2000).default(50),
  EMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(32),
  /** A document still not indexed after this long is marked FAILED. */
  INGEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10 * 60_000),
  /** Wall-clock limit for reading one file in its thread; past it the thread is killed (EXTRACTION_TIMEOUT). */
  EXTRACT_TIMEOUT_MS: z.coerce.number().int().min(10).default(60_000),
  /** Heap limit of each extraction thread; a file that needs more fails as EXTRACTION_TOO_LARGE. */
  EXTRACT_MEMORY_MB: z.coerce.number().int().min(32).max(16_384).default(512),
  /** Extraction threads per worker process (files read at the same time; more wait their turn). */
  EXTRACT_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  /** Characters of text one document may produce; more fails as EXTRACTION_TOO_LARGE. */
  EXTRACT_MAX_TEXT_CHARS: z.coerce.number().int().min(1000).default(5_000_000),
  /** Chunks one document may produce; more fails as EXTRACTION_TOO_LARGE. */
  INGEST_MAX_CHUNKS: z.coerce.number().int().min(1).default(5_000),
  /** Bytes a DOCX/PPTX may inflate to (declared sizes checked first, actual bytes counted while inflating). */
  ZIP_MAX_UNCOMPRESSED_BYTES: z.coerce.number().int().min(1024).default(200 * 1024 * 1024),
  /** Entries a DOCX/PPTX may hold. */
  ZIP_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),

  /**
   * Slug of the platform operator's organisation. Bull Board shows every tenant's jobs, so only
   * admins of this organisation may open it; unset, nobody can.
   */
  OPS_ORG: optionalString,

  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: optionalString,

  DATA_DIR: z.string().default(".data"),
  /** npm start only: port of the embedded Postgres (PGlite), used when DATABASE_URL is unset. */
  EMBEDDED_POSTGRES_PORT: port.default(54329),
  /** npm start only: port of the embedded redis-server, used when REDIS_URL is unset. */
  EMBEDDED_REDIS_PORT: port.default(6390),
  /** npm start only: port of the offline model server, used when LLM_BASE_URL is unset. */
  EMBEDDED_LLM_PORT: port.default(11435),
  /** npm start only: a server or worker that crashes this many times in a row, each within a minute of starting, stops the launcher. */
  LAUNCHER_MAX_FAST_CRASHES: z.coerce.number().int().min(1).default(5),
  /** npm start only: memory cap of the embedded redis-server (noeviction: writes fail past it, nothing is evicted). */
  REDIS_MAXMEMORY: z.string().trim().regex(/^\d+(kb|mb|gb)?$/i, "use a size like 512mb or 2gb").default("512mb"),
});

export type Config = z.infer<typeof configSchema> & {
  /** Whether embedding inputs get E5 prefixes (explicit flag, else inferred from the model name). */
  embeddingPrefixes: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * dev-login hands out a token for an email alone, so a production process refuses to start with
 * it on. Read from the raw environment so it is reported together with any other bad variable.
 */
function devLoginProblems(env: NodeJS.ProcessEnv): string[] {
  const devLogin = booleanFlag.safeParse(env.DEV_LOGIN_ENABLED);
  if (env.NODE_ENV?.trim() === "production" && devLogin.success && devLogin.data) {
    return ["DEV_LOGIN_ENABLED: dev-login is a development tool and is refused when NODE_ENV=production (unset DEV_LOGIN_ENABLED, or use NODE_ENV=development for a demo)"];
  }
  return [];
}

/** Parses an environment; throws one ConfigError listing every bad variable. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const result = configSchema.safeParse(env);
  const problems = devLoginProblems(env);
  if (!result.success) {
    const fieldProblems = result.error.issues.map((issue) => {
      const name = issue.path.join(".") || "(environment)";
      return `${name}: ${issue.message}`;
    });
    throw new ConfigError([...fieldProblems, ...problems]);
  }
  const parsed = result.data;
  if (parsed.JWT_TTL_SECONDS > parsed.JWT_MAX_TTL_SECONDS) {
    problems.push(`JWT_TTL_SECONDS: ${parsed.JWT_TTL_SECONDS} exceeds JWT_MAX_TTL_SECONDS (${parsed.JWT_MAX_TTL_SECONDS}); tokens would be refused as soon as they are issued`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...parsed,
    embeddingPrefixes: parsed.EMBEDDING_PREFIXES ?? /(^|\/)(multilingual-)?e5/i.test(parsed.EMBEDDING_MODEL),
  };
}

let cached: Config | undefined;

/** The process's configuration, parsed once from `process.env`. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Tests change the environment between suites; this forgets the cached parse. */
export function resetConfig(): void {
  cached = undefined;
}

/** Which model a use case runs on: its own override, else LLM_MODEL. */
export type LlmUseCase = "tutor" | "generation" | "evaluation" | "admin" | "ingestion" | "summary";

export function modelFor(config: Config, useCase: LlmUseCase): string {
  const overrides: Record<LlmUseCase, string | undefined> = {
    tutor: config.LLM_MODEL_TUTOR,
    generation: config.LLM_MODEL_GENERATION ?? config.LLM_MODEL_TUTOR,
    evaluation: config.LLM_MODEL_EVALUATION,
    admin: config.LLM_MODEL_ADMIN,
    ingestion: config.LLM_MODEL_INGESTION,
    summary: config.LLM_MODEL_TUTOR,
  };
  return overrides[useCase] ?? config.LLM_MODEL;
}

/** Fails with a clear message when a process needs a variable the launcher normally sets. */
export function requireSetting<K extends keyof Config>(config: Config, key: K): NonNullable<Config[K]> {
  const value = config[key];
  if (value === undefined || value === null) {
    throw new ConfigError([`${String(key)}: is required for this process (npm start sets it in embedded mode)`]);
  }
  return value as NonNullable<Config[K]>;
}
