/**
 * The one place that reads the environment. Every process (server, worker, scripts) calls
 * `getConfig()`; a bad environment is reported all at once, by variable name, so an operator
 * fixes everything in one pass instead of one restart per typo.
 */
import { z } from "zod";
import { parseCidrList } from "./outbound/address-policy";

const optionalString = z
  .string()
  .transform((value) => value.trim())
  .optional()
  .transform((value) => (value === "" ? undefined : value));

const booleanFlag = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((value) => value === "true" || value === "1" || value === "yes");

export const port = z.coerce.number().int().min(0).max(65535);

/** Behind Sentinel or on a cluster: how long a turn event waits for a replica (`WAIT 1`) before clients see it. */
const replicaWait = z.coerce.number().int().min(0).max(10_000).default(250);
const REPLICA_WAIT =
  "a turn event is shown to clients only once a replica holds it (`WAIT 1`), so a failover never takes back " +
  "text a user saw. This bounds that wait; past it the event goes out anyway. `0` = do not wait.";

/** `WORKER_QUEUES=all` or `tutor-generate:50,ingest-embed:2` (concurrency optional). */
const workerQueues = z
  .string()
  .trim()
  .regex(/^(all|[a-z-]+(:\d+)?(,[a-z-]+(:\d+)?)*)$/, "use 'all' or a list like 'tutor-generate:4,ingest-embed:2'");

/**
 * A JSON array in one variable (fallback providers): unset is no list. The parse error's own
 * text is left out of the message because it quotes the input, and the input holds API keys.
 */
const jsonList = <T extends z.ZodType>(item: T) =>
  optionalString
    .transform((value, ctx): unknown => {
      if (value === undefined) return undefined;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: 'is not valid JSON; write an array like [{"base_url":"https://…/v1","model":"…"}]' });
        return z.NEVER;
      }
    })
    .pipe(z.array(item).max(8).optional());

const providerUrl = z.url({ protocol: /^https?$/ });
const providerKey = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined);

const chatProvider = z.strictObject({
  name: z.string().trim().min(1).max(40).optional(),
  base_url: providerUrl,
  api_key: providerKey,
  model: z.string().trim().min(1).optional(),
  tool_calling: z.enum(["native", "json"]).optional(),
});

const embeddingProvider = z.strictObject({
  name: z.string().trim().min(1).max(40).optional(),
  base_url: providerUrl,
  api_key: providerKey,
  model: z.string().trim().min(1).optional(),
});

/** Its own schema, so the logger can read LOG_LEVEL without parsing every other setting (lib/logger.ts). */
export const logLevelSetting = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info").describe("pino level of every process.");

/**
 * Every setting with its doc: `.describe()` (not a comment) so `npm run docs:config` can print
 * docs/configuration.md from this schema, and a test fails when the page and the code drift.
 */
export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development").describe("`production` refuses dev-login at start-up."),
  LOG_LEVEL: logLevelSetting,
  HOST: z
    .string()
    .default("0.0.0.0")
    .describe("Bind address of the HTTP/Socket.IO server. While dev-login is on, `npm start` binds `127.0.0.1` unless you set it (and then warns)."),
  PORT: port.default(3000).describe("Port of the HTTP API, Socket.IO (`/socket.io`) and Bull Board."),

  DATABASE_URL: optionalString
    .pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional())
    .describe(
      "`postgres://` or `postgresql://` URL, with the `vector` extension (pgvector). Required by the server, the workers and `db:prepare`. " +
        "Unset, `npm start` runs a local PostgreSQL of its own, or PGlite (see `EMBEDDED_POSTGRES`).",
    ),
  DATABASE_READ_URL: optionalString
    .pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional())
    .describe(
      "A streaming replica of `DATABASE_URL`. Set, retrieval searches and history reads go to it; everything that must read its own " +
        "writes stays on the primary. A replica that is down or lags more than `DATABASE_READ_MAX_LAG_MS` is skipped for the primary.",
    ),
  DATABASE_READ_MAX_LAG_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5_000)
    .describe("How far behind the primary the read replica may replay before its reads go to the primary (checked every second)."),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(8).describe("Knex pool size per process."),
  DATABASE_POOL_ACQUIRE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5_000)
    .describe(
      "How long an HTTP request waits for a free connection of the server's pool. Past it the request answers `503 SERVICE_UNAVAILABLE`, " +
        "so a full pool turns callers away quickly instead of queueing them. Workers wait up to 30 s (then the job is put back).",
    ),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(15_000)
    .describe(
      "Postgres cancels any statement of the server or workers running longer than this (`0` = never), so one runaway query cannot hold " +
        "a pooled connection; the request answers `503 DATABASE_TIMEOUT`. Migrations and scripts run without it.",
    ),
  REDIS_URL: optionalString
    .pipe(z.url({ protocol: /^rediss?$/ }).optional())
    .describe(
      "`redis://` or `rediss://` URL: Redis 7.0+ with `maxmemory-policy noeviction`. Unset, `npm start` runs a local redis-server. " +
        "With `REDIS_SENTINELS` set, only its user, password, database number and scheme (`rediss` = TLS) are used, for the master.",
    ),
  REDIS_SENTINELS: optionalString
    .pipe(
      z
        .string()
        .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, "use a list like 'sentinel-a:26379,sentinel-b:26379'")
        .optional(),
    )
    .describe(
      "`host:port,…` of Redis Sentinels. Set, every connection asks them for the master named `REDIS_SENTINEL_NAME` and follows it " +
        "through a failover; `npm start` runs no Redis of its own. TLS to the sentinels when `REDIS_URL` is `rediss://`.",
    ),
  REDIS_SENTINEL_NAME: z
    .string()
    .trim()
    .min(1)
    .default("mymaster")
    .describe("The master's name in the sentinels' configuration (`sentinel monitor <name> …`)."),
  REDIS_SENTINEL_PASSWORD: optionalString.describe("Password of the sentinels themselves (`requirepass` in sentinel.conf), when they have one."),
  REDIS_SENTINEL_WAIT_MS: replicaWait.describe(`With \`REDIS_SENTINELS\`: ${REPLICA_WAIT}`),

  REDIS_CLUSTER_NODES: optionalString
    .pipe(
      z
        .string()
        .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, "use a list like 'redis-a:6379,redis-b:6379'")
        .optional(),
    )
    .describe(
      "`host:port,…` of some nodes of a Redis Cluster (7.0+, `maxmemory-policy noeviction` on every node). Set, every connection is a " +
        "cluster client that finds the rest of the nodes and follows failovers; `npm start` runs no Redis of its own. User, password and " +
        "TLS (`rediss`) come from `REDIS_URL` when it is set.",
    ),
  REDIS_CLUSTER_WAIT_MS: replicaWait.describe(`With \`REDIS_CLUSTER_NODES\`: ${REPLICA_WAIT}`),
  QUEUE_SHARDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .describe(
      "Copies of the tutor and admin queues, each under its own hash tag so a Redis Cluster spreads them over its shards; every turn of " +
        "a session goes to the same copy and workers serve them all. `1` on a single Redis keeps the queues as they were.",
    ),

  LLM_BASE_URL: optionalString
    .pipe(z.url().optional())
    .describe("Base URL of an OpenAI-compatible API, ending in `/v1`. Unset, `npm start` runs the offline model server."),
  LLM_API_KEY: optionalString.describe("Bearer key; whitespace is stripped. Servers that need none (Ollama, vLLM) work without it."),
  LLM_MODEL: z.string().trim().min(1).default("offline-extractive").describe("Default model for every use case. A comma-separated list is a fallback chain."),
  LLM_MODEL_TUTOR: optionalString.describe("Intent classification, choosing PageIndex modules, session summaries. Unset: `LLM_MODEL`."),
  LLM_MODEL_GENERATION: optionalString.describe("The streamed tutor answer. Unset: `LLM_MODEL_TUTOR`, then `LLM_MODEL`."),
  LLM_MODEL_ADMIN: optionalString.describe("Model (or fallback chain) of the admin assistant's tool-calling turns. Unset: `LLM_MODEL`."),
  LLM_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000).describe("Timeout of one model request until its response headers."),
  LLM_STREAM_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(30_000)
    .describe(
      "A streaming answer that sends nothing for this long is abandoned: retried when no text was shown yet, else the turn ends with " +
        "`LLM_UNAVAILABLE`. Raise it for slow local models.",
    ),

  LLM_FALLBACK_PROVIDERS: jsonList(chatProvider).describe(
    "Providers tried in order after `LLM_BASE_URL` when it is down (connection refused, timeout, 5xx, 429 after retries, 404): a JSON array of " +
      '`{"base_url": "https://…/v1", "api_key": "…", "model": "…", "tool_calling": "json", "name": "…"}`. `model` is a model or comma-separated ' +
      "chain for every use case (unset: the same model names as the primary); `api_key` may be left out for servers that need none; `name` labels " +
      "logs (unset: the URL's host). Each provider+model has its own cool-down. A stream falls back only before its first token.",
  ),
  LLM_TOOL_CALLING: z
    .enum(["native", "json"])
    .default("native")
    .describe(
      "How the admin assistant calls tools. `native`: the API's `tools` field. `json`: for models without tool calling (many local ones), the tools " +
        "are described in the prompt and the model's JSON reply (bare, fenced or amid prose) is read into tool calls. A fallback provider may set its own.",
    ),

  EMBEDDING_BASE_URL: optionalString.pipe(z.url().optional()).describe("Separate endpoint for embeddings. Unset: `LLM_BASE_URL`."),
  EMBEDDING_API_KEY: optionalString.describe("Key for the embedding endpoint. Unset: `LLM_API_KEY`."),
  EMBEDDING_MODEL: z.string().trim().min(1).default("intfloat/multilingual-e5-small").describe("Embedding model name."),
  EMBEDDING_DIMENSIONS: z.coerce
    .number()
    .int()
    .min(2)
    .max(4000)
    .default(384)
    .describe(
      "Vector width, fixed when the database is first migrated and checked by workers at start-up. Above 2000 there is no HNSW index, " +
        "so searches do an exact scan.",
    ),
  EMBEDDING_PREFIXES: booleanFlag
    .optional()
    .describe(
      "Add E5's `query: ` / `passage: ` prefixes (other models must not get them). Unset: `true` when the model name, after any " +
        "`org/` prefix, starts with `e5` or `multilingual-e5`.",
    ),

  EMBEDDING_FALLBACK_PROVIDERS: jsonList(embeddingProvider).describe(
    'Embedding providers tried in order when the embedding endpoint is down: a JSON array of `{"base_url": …, "api_key": …, "model": …}` (`model` unset: ' +
      "`EMBEDDING_MODEL`). Each must answer `EMBEDDING_DIMENSIONS`-wide vectors: workers probe them at start-up and refuse to start otherwise. Use the " +
      "same model on another server: another model of the same width puts questions in a different vector space from the stored chunks.",
  ),
  EMBEDDING_QUERY_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(300)
    .describe(
      "How long a question's embedding is kept in Redis (per organisation, keyed by a SHA-256 of model, width and text), so a repeated question " +
        "is not embedded again. `0` = no cache.",
    ),

  JWT_SECRET: optionalString
    .pipe(z.string().min(16, "must be at least 16 characters").optional())
    .describe("HS256 key for tokens, at least 16 characters. Required by the server; `npm start` generates one into `.data/jwt-secret`."),
  JWT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(12 * 3600)
    .describe("Lifetime of tokens issued by dev-login (12 h; at most `JWT_MAX_TTL_SECONDS`)."),
  DEV_LOGIN_ENABLED: booleanFlag
    .default(false)
    .describe(
      "Enables `POST /api/v1/auth/dev-login` (an email alone buys a token). Refused at start with `NODE_ENV=production`. " +
        "`npm start` turns it on when it runs the embedded Postgres.",
    ),
  JWT_MAX_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(24 * 3600)
    .describe(
      "Longest token lifetime accepted from any issuer (24 h), so a leaked token cannot live for ever: a token without `exp` or `iat`, " +
        "or whose `exp − iat` is longer, gets `401`.",
    ),
  JWT_ISSUER: z
    .string()
    .trim()
    .min(1)
    .default("skillnet-chat")
    .describe(
      "`iss` of our own HS256 tokens (dev-login and single sign-on sign with it); a token with another `iss` is checked against the identity providers.",
    ),
  JWT_AUDIENCE: optionalString.describe("When set, dev-login tokens carry this `aud` and tokens without it get `401`."),
  OIDC_HTTP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(5_000)
    .describe(
      "Timeout of each request to an identity provider (discovery, JWKS, the code exchange): a provider that hangs ends sign-in on an " +
        "error page, and saving its settings with `PROVIDER_UNREACHABLE`, within this bound.",
    ),
  OUTBOUND_ALLOWED_CIDRS: z
    .string()
    .trim()
    .default("")
    .refine((value) => {
      try {
        parseCidrList(value);
        return true;
      } catch {
        return false;
      }
    }, "use comma-separated IP addresses or CIDR ranges, e.g. 10.20.0.0/16,192.168.1.5")
    .describe(
      "Private networks that requests to URLs an organisation's admin chose (an identity provider's issuer, its JWKS) may reach, as " +
        "comma-separated CIDR ranges (e.g. `10.20.0.0/16` for a Keycloak on the LAN, `127.0.0.1/32` for one on this host). Empty: public " +
        "addresses only, over HTTPS; plain `http://` is accepted only to these ranges. Link-local addresses (cloud metadata) are refused " +
        "whatever it says. `npm start` on its embedded parts (dev-login on, loopback only) defaults it to loopback.",
    ),
  DNS_RESOLVERS: optionalString
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((server) => server.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$|^[0-9a-fA-F:]+$/,
            "an IP address, optionally with :port (IPv6 with a port in brackets)",
          ),
      ),
    )
    // Unset stays unset (the system's resolvers), not an empty list.
    .transform((servers) => (servers.length > 0 ? servers : undefined))
    .describe(
      "DNS resolvers used to verify an organisation's email domain (its `_skillnet-challenge` TXT record), comma-separated IP addresses " +
        "with an optional port (`10.0.0.2,10.0.0.3:53`). Unset: the system's resolvers.",
    ),
  OIDC_JWKS_COOLDOWN_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(30)
    .describe(
      "A provider token whose `kid` is not in the cached JWKS makes at most one refetch of that provider's JWKS per this many seconds " +
        "(per issuer, per server node); within it, an unknown `kid` gets `401 TOKEN_KEY_UNKNOWN` without a request.",
    ),
  OIDC_JWKS_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(600)
    .describe(
      "How long a provider's JWKS and discovery document are trusted before they are fetched again; a key the provider stopped " +
        "publishing is refused at most this long after (at least `OIDC_JWKS_COOLDOWN_SECONDS`).",
    ),
  SECRETS_KEY: optionalString
    .pipe(z.string().min(32, "must be at least 32 characters").optional())
    .describe(
      "Key that encrypts secrets stored in the database (identity providers' client secrets), at least 32 characters. Required to " +
        "configure a provider with a client secret; changing it makes stored secrets unreadable (re-enter them). `npm start` generates " +
        "one into `.data/secrets-key`.",
    ),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(900)
    .describe(
      "Lifetime of the access tokens `POST /api/v1/auth/refresh` mints after a single sign-on (15 min; at most `JWT_MAX_TTL_SECONDS`). " +
        "The browser refreshes before they run out.",
    ),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .default(30 * 24 * 3600)
    .describe(
      "Lifetime of the browser's refresh cookie after a single sign-on (30 days); each use replaces it with a new one of the same " +
        "lifetime, so a browser left unused this long signs in again.",
    ),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe(
      "Single sign-on starts (`GET /api/v1/auth/oidc/:providerId/start`) per client IP per minute: each keeps a pending sign-in in Redis " +
        "for 10 min, so this bounds what one address can store. The public provider lookup (`GET /api/v1/auth/providers`) is counted " +
        "separately against the same number. Generous, because a company's people often share one address.",
    ),
  RATE_LIMIT_DEV_LOGIN_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe("dev-login attempts per client IP per sliding 60 s window (`429 RATE_LIMITED` past it)."),
  SCIM_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(1200)
    .describe(
      "SCIM requests (`/scim/v2`) per organisation's SCIM token per sliding 60 s window; past it a SCIM `429` with Retry-After, which " +
        "Okta and Entra ID honour. A full sync sends a few requests per person.",
    ),
  INTEGRATION_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe(
      "Requests to the integration endpoints (`/api/v1/integrations`) per integration key per sliding 60 s window (`429 RATE_LIMITED` " +
        "with `retry_after` past it). A bulk import is one request however many records it carries.",
    ),
  CATALOG_IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(32 * 1024 * 1024)
    .describe(
      "The largest bulk catalog import (`POST /api/v1/integrations/catalog/imports`), NDJSON or JSON: 32 MiB holds a catalog of " +
        "thousands of lessons and tens of thousands of enrolments. A larger body is refused (`413 IMPORT_TOO_LARGE`) and nothing is stored; " +
        "split it into several imports.",
    ),
  SOCKET_REAUTH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(60_000)
    .describe(
      "How often each server node re-checks its sockets' accounts (one query per node) and token expiry; a deactivated or deleted " +
        "user's socket is disconnected with `auth_expired`.",
    ),
  TRUST_PROXY: booleanFlag
    .default(false)
    .describe(
      "Behind a reverse proxy: trust `X-Forwarded-For` (client IP for rate limits) and `X-Forwarded-Proto` (HTTPS, so the Bull Board " +
        "cookie is `Secure`). Leave off when clients reach the server directly.",
    ),
  TRUST_PROXY_HOPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(1)
    .describe(
      "With `TRUST_PROXY`: how many proxies of yours stand in front of the server. The client IP is the entry this many places from the " +
        "right of `X-Forwarded-For` (each proxy appends the address it saw), so entries a client wrote itself are never read.",
    ),
  PUBLIC_URL: optionalString
    .pipe(z.url({ protocol: /^https?$/ }).optional())
    .describe(
      "The URL people open (e.g. `https://learn.example.com`). While dev-login is on, only requests whose `Host` is this URL's host or a " +
        "loopback name are served (`421 HOST_NOT_ALLOWED` otherwise, against DNS rebinding).",
    ),
  BOARD_CODE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(600)
    .default(60)
    .describe("Lifetime of the single-use code that signs a browser in to Bull Board."),
  BULL_BOARD_READ_ONLY: booleanFlag
    .default(false)
    .describe(
      "Mount Bull Board read-only: operators still see every queue and job, but retry, clean, promote, pause, add and empty are refused " +
        "(`405`). Off by default: the board then controls every tenant's jobs.",
    ),
  HSTS_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(15_552_000)
    .describe(
      "`Strict-Transport-Security` max-age sent on responses to requests that came over HTTPS (behind a proxy, only with `TRUST_PROXY`, " +
        "from `X-Forwarded-Proto`). 0 sends no HSTS header.",
    ),

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
  EVENT_STREAM_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .default(3600)
    .describe("How long a turn's events stay in Redis for replay; also how long a session remembers its latest turn."),
  EVENT_STREAM_MAX_EVENTS: z.coerce.number().int().min(100).default(20_000).describe("Cap on the events kept per turn (approximate, via `XADD MAXLEN ~`)."),
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

  RATE_LIMIT_TUTOR_PER_MINUTE: z.coerce.number().int().min(1).default(30).describe("Tutor messages (`POST /api/v1/chat`) per user per sliding 60 s window."),
  RATE_LIMIT_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).default(20).describe("Admin assistant turns (`POST /api/v1/chat/admin`) per admin per minute."),
  RATE_LIMIT_ORG_TUTOR_PER_MINUTE: z.coerce.number().int().min(1).default(600).describe("Tutor messages per organisation (all its users together) per minute."),
  RATE_LIMIT_ORG_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).default(100).describe("Admin assistant turns per organisation per minute."),
  // 120/300, not 30/120: one embedded worker indexes about 7 small documents a second (420/min),
  // so 30/min made a first day's folder of 300 pages take 10 min for no protection; the console
  // queues past the limit either way (issue 25).
  RATE_LIMIT_UPLOADS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe("Document uploads per admin per minute (the admin console queues files past it and sends them when the server allows)."),
  RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: z.coerce.number().int().min(1).default(300).describe("Document uploads per organisation per minute."),
  RATE_LIMIT_REINDEX_PER_MINUTE: z.coerce.number().int().min(1).default(20).describe("Document re-index requests per admin per minute."),
  RATE_LIMIT_ORG_REINDEX_PER_MINUTE: z.coerce.number().int().min(1).default(60).describe("Document re-index requests per organisation per minute."),
  RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe("Socket.IO connections (handshakes) per user per minute; past it the handshake fails with `RATE_LIMITED`."),
  RATE_LIMIT_SOCKET_JOINS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe('Socket `join` calls per user per minute; past it the ack is `{ok: false, error: {code: "RATE_LIMITED"}}`.'),
  RATE_LIMIT_SOCKET_EVENTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe(
      "Socket `cancel` and `watch_action` calls (the events that read the database) per user per minute, across all of the user's sockets " +
        'and server nodes; past it the ack is `{ok: false, error: {code: "RATE_LIMITED"}}`.',
    ),
  SOCKET_EVENT_BURST: z.coerce
    .number()
    .int()
    .min(1)
    .default(40)
    .describe("Events one socket may send at once (its token bucket's size), of any kind, before any is parsed or read from the database."),
  SOCKET_EVENTS_PER_SECOND: z.coerce
    .number()
    .min(0.1)
    .default(5)
    .describe('How fast a socket\'s token bucket refills; an event past it acks `{ok: false, error: {code: "RATE_LIMITED", retryAfter}}`.'),
  SOCKET_FLOOD_DISCONNECT_AFTER: z.coerce
    .number()
    .int()
    .min(1)
    .default(100)
    .describe('Refused events within a minute after which a socket is sent `rate_limited {code: "EVENT_FLOOD"}` and disconnected.'),
  SOCKET_MAX_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe("Sockets one user may hold open at once, counted across server nodes in Redis; one more fails its handshake with `TOO_MANY_SOCKETS`."),

  AI_MONTHLY_TOKENS_PER_ORG: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "Model tokens each organisation may use per calendar month (UTC), before its credits; 0 = unlimited (the self-hosted default). An operator sets one organisation's own allowance with `PUT /api/v1/ops/orgs/:orgId/ai-allowance`.",
    ),

  CONTENT_GAP_SIMILARITY: z.coerce
    .number()
    .min(0.1)
    .max(1)
    .default(0.8)
    .describe(
      "Cosine similarity at which two tutor questions count as the same question in the content-gap report. 0.8 groups near-identical wording with the offline model's hashed embeddings; E5 models place unrelated questions near 0.8, so use about 0.9 with them.",
    ),

  CONTENT_GAP_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(5)
    .default(600)
    .describe(
      "How long a computed content-gap report is served from Redis. New question vectors, ratings and (de)activated people make it " +
        "stale at once (the next request recomputes it in a worker); this bounds how long anything else, like a renamed department, takes to show.",
    ),
  RATE_LIMIT_CONTENT_GAPS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe("Content-gap report requests per admin per minute (`429 RATE_LIMITED` past it); the page polls every 2 s while a report is computed."),

  ADMIN_ACTION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(24 * 3600)
    .describe("An admin action not confirmed within this long expires (`409 ACTION_EXPIRED`): its preview may be stale."),
  ADMIN_MAX_TOOL_ROUNDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe("Tool-calling rounds per admin turn before the model must answer with what it has."),
  ADMIN_MAX_TOOL_CALLS_PER_ROUND: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(10)
    .describe("Tool calls the admin assistant runs from one model reply; the calls past it are answered with a result saying the limit, not run."),
  ADMIN_TOOL_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(3)
    .describe(
      "Retries of an admin assistant tool call that failed on a database blip (connection lost, statement timeout, deadlock), with exponential backoff.",
    ),
  ADMIN_TOOL_RETRY_BASE_MS: z.coerce.number().int().min(1).default(200).describe("First backoff of those retries; each next one doubles, up to 8 times this."),
  ADMIN_TOOL_BREAKER_FAILURES: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe(
      "Consecutive failed calls (after their retries) of one admin tool in one organisation that switch the tool off for `ADMIN_TOOL_BREAKER_COOLDOWN_MS`.",
    ),
  ADMIN_TOOL_BREAKER_COOLDOWN_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(30_000)
    .describe("How long a tripped admin tool stays off: its calls are not attempted, and the model is told the tool is unavailable for now."),
  LLM_CONTEXT_WINDOW: z
    .preprocess((value) => (value === "" ? undefined : value), z.coerce.number().int().min(2_048).optional())
    .describe(
      "The model's context window in tokens, for the admin assistant's requests (history, tools and tool results are fitted into it). " +
        "Unset: looked up from the model's name (8,192 for a name it does not know); set it for a local model served with a smaller window.",
    ),
  ADMIN_ACTION_BATCH_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(20)
    .describe("Items of a confirmed action applied between two `action_progress` events."),
  ADMIN_ACTION_BATCH_PAUSE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(0)
    .describe("Pause between batches, to keep a large bulk action from crowding out other database work."),

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
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(8_000)
    .describe(
      "A server or worker still closing this long after SIGTERM exits anyway: keep it below the orchestrator's kill timeout " +
        "(compose 10 s, Kubernetes 30 s).",
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
  TURN_SWEEP_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000).describe("How often the `maintenance` queue's job scheduler looks for lost turns."),

  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024)
    .describe("Largest document upload accepted (5 MB; `413 FILE_TOO_LARGE` above it)."),
  ORG_STORAGE_QUOTA_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024 * 1024)
    .describe(
      "Uploaded files an organisation may store in total (1 GB; an organisation's `storage_quota_bytes` overrides it). An upload past it " +
        "answers `409 STORAGE_QUOTA_EXCEEDED` and stores nothing; `GET /api/v1/documents` reports `storage` (used and quota).",
    ),
  ORG_DELETE_BATCH_ROWS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(5_000)
    .describe(
      "Rows an organisation's deletion (`org-delete` queue) removes per transaction from each big table (chunks, messages…): small " +
        "enough that no batch holds its locks for long, large enough that a big organisation goes in minutes.",
    ),
  RETENTION_SWEEP_BATCH_SESSIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(500)
    .describe(
      "Chat sessions the `chat-retention` sweep deletes per transaction (with their messages, feedback and question vectors) for an " +
        "organisation with a retention (`PUT /api/v1/admin/retention`); each sweep run does at most 20 such batches per organisation and " +
        "the next run goes on where it stopped.",
    ),
  RETENTION_SWEEP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(300_000)
    .describe("How often the `chat-retention` maintenance sweep runs (5 minutes: chats are kept whole days, a backlog drains run by run)."),
  PERSON_EXPORT_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(720)
    .default(24)
    .describe("How long a person's data export (`/api/v1/me/export`, an admin's export of one person) can be downloaded once built."),
  PERSON_ERASE_BATCH_ROWS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1_000)
    .describe("Rows a person's erasure (`person-data` queue) deletes or unlinks per transaction from each table, so no batch holds its locks for long."),
  CHUNK_STRATEGY: z.enum(["recursive", "markdown", "token"]).default("recursive").describe("How documents are cut into chunks."),
  CHUNK_TOKENS: z.coerce.number().int().min(50).max(8000).default(400).describe("Target chunk size in tokens."),
  CHUNK_OVERLAP_TOKENS: z.coerce.number().int().min(0).max(2000).default(50).describe("Overlap between neighbouring chunks, in tokens."),
  RETRIEVAL_FUSION: z
    .enum(["weighted", "rrf"])
    .default("weighted")
    .describe("How hybrid search merges vector and keyword hits: weighted sum of scores, or reciprocal rank fusion (eval/results.md compares them)."),
  RETRIEVAL_VECTOR_WEIGHT: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.6)
    .describe("Weighted fusion: the cosine similarity's share; the keyword rank gets the rest."),
  RETRIEVAL_RRF_K: z.coerce.number().int().min(1).max(1000).default(60).describe("Reciprocal rank fusion: the k in 1 / (k + rank)."),
  RETRIEVAL_SIMILARITY_FLOOR: z.coerce.number().min(0).max(1).default(0.3).describe("Vector hits below this cosine similarity are not evidence."),
  RETRIEVAL_EXACT_MAX_CHUNKS: z.coerce
    .number()
    .int()
    .min(0)
    .default(2_000)
    .describe(
      "An organisation with at most this many chunks is searched exactly (recall 1); a larger one gets an HNSW index of its own, built concurrently by the maintenance sweep, and is searched exactly until that index is valid. The default is where the index overtakes exact search on PostgreSQL (bench/results-vector-1m.md). 0: every organisation gets an index.",
    ),
  VECTOR_INDEX_BUILD_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(16)
    .default(512)
    .describe(
      "`maintenance_work_mem` of the session that builds an organisation's HNSW index: a graph that does not fit is built far slower. 100,000 chunks of 384 dimensions need ≈ 250 MB.",
    ),
  // The keyword side's floor, a third: half cost 2–4 points of recall@5 on eval/results.md's
  // corpus (paraphrases rarely repeat more). One shared word ("who" in "Who won the 1998 world
  // cup?") is not evidence, and letting it through would keep an unrelated question off the
  // general rung; a rare token the question is about (ZEBRA-7) easily clears it.
  RETRIEVAL_KEYWORD_COVERAGE_FLOOR: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.34)
    .describe("A chunk only keyword search found must contain this share of the question's content words."),
  RETRIEVAL_GROUNDING_COVERAGE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.55)
    .describe(
      "A passage or document grounds an answer only when it covers this share of the question's terms, each weighted by its rarity in the organisation's material (a passage adds half its cosine similarity; or it clears RETRIEVAL_GROUNDING_SIMILARITY); eval/tuning.md.",
    ),
  RETRIEVAL_GROUNDING_SIMILARITY: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      "Cosine similarity at which a passage grounds an answer whatever words it shares; measured with the offline hashed embeddings, re-measure it for another embedding model (eval/tuning.md).",
    ),
  EMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(32).describe("Chunks per embeddings request."),
  INGEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000)
    .describe("A document still not indexed after this long (10 min) is marked `FAILED` (`INGEST_TIMEOUT`)."),
  EXTRACT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(60_000)
    .describe("Wall-clock limit for reading one file in its thread; past it the thread is killed and the document fails `EXTRACTION_TIMEOUT`."),
  EXTRACT_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(32)
    .max(16_384)
    .default(512)
    .describe("Heap limit of each extraction thread; a file that needs more fails `EXTRACTION_TOO_LARGE`."),
  EXTRACT_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .describe(
      "Extraction threads per worker process: files read (and chunked) at the same time, off the event loop; more wait their turn. " +
        "One keeps a hostile file to one core; on 2 shared cores a second gave no more pages/s (bench/optimisations.md §13). A worker that only ingests, on cores of its own: its core count.",
    ),
  EXTRACT_MAX_TEXT_CHARS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5_000_000)
    .describe("Characters of text one document may produce; more fails `EXTRACTION_TOO_LARGE`."),
  INGEST_MAX_CHUNKS: z.coerce.number().int().min(1).default(5_000).describe("Chunks one document may produce; more fails `EXTRACTION_TOO_LARGE`."),
  ZIP_MAX_UNCOMPRESSED_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(200 * 1024 * 1024)
    .describe("Bytes a DOCX/PPTX/XLSX may inflate to (200 MB): declared sizes are checked first, actual bytes counted while inflating."),
  ZIP_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000).describe("Entries a DOCX/PPTX/XLSX may hold."),
  XLSX_MAX_CELLS: z.coerce
    .number()
    .int()
    .min(1)
    .default(500_000)
    .describe("Non-empty cells one XLSX workbook may hold across its sheets; more fails `EXTRACTION_TOO_LARGE`."),
  OCR_LANGUAGES: z
    .string()
    .regex(/^[a-z_]+(\+[a-z_]+)*$/, "tesseract language codes joined by +, e.g. eng+spa")
    .default("eng+spa")
    .describe(
      "Languages OCR reads scanned PDF pages and PNG/JPEG images in (tesseract codes joined by `+`); each needs its Debian `tesseract-ocr-<code>` package, else those documents fail `OCR_UNAVAILABLE`.",
    ),
  OCR_MAX_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .describe("Pages without a text layer one PDF may have for OCR; more fails `EXTRACTION_TOO_LARGE` before any page is read."),
  OCR_PAGE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(60_000)
    .describe(
      "Wall-clock limit for rendering and reading one page or image by OCR; past it the OCR process is killed and the document fails `EXTRACTION_TIMEOUT`.",
    ),
  OCR_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5 * 60_000)
    .describe(
      "Wall-clock limit for all OCR of one document (5 min); it replaces `EXTRACT_TIMEOUT_MS` once a file turns out to need OCR. Keep it below `INGEST_TIMEOUT_MS`.",
    ),
  OCR_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(64)
    .max(16_384)
    .default(1024)
    .describe("Address-space limit (prlimit) of each OCR process (tesseract, pdftoppm); an image that needs more fails."),
  OCR_TESSERACT_BIN: z
    .string()
    .min(1)
    .default("tesseract")
    .describe("The tesseract program (a name on PATH or a path); missing, scanned documents fail `OCR_UNAVAILABLE` and everything else works."),
  OCR_PDFTOPPM_BIN: z
    .string()
    .min(1)
    .default("pdftoppm")
    .describe("Poppler's pdftoppm, which renders a PDF page without text to an image for OCR (Debian `poppler-utils`)."),

  OPS_ORG: optionalString.describe(
    "Slug of the platform operator's organisation. Bull Board shows every tenant's jobs, so only admins of this organisation may open it; " +
      "unset, nobody can (`npm start` with the embedded database sets `acme`).",
  ),

  METRICS_TOKEN: optionalString.describe(
    "When set, `GET /metrics` requires `Authorization: Bearer <METRICS_TOKEN>`, which also unlocks the reasons in `/readyz`. " +
      "Unset, metrics are served only while dev-login is on (`403` otherwise).",
  ),

  REDIS_MAXMEMORY: z
    .string()
    .trim()
    .regex(/^\d+(kb|mb|gb)?$/i, "use a size like 512mb or 2gb")
    .default("512mb")
    .describe(
      "`npm start` (embedded redis-server) and `docker-compose.yml`: Redis memory cap, with `noeviction` (writes fail past it, " + "nothing is evicted).",
    ),
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
    return [
      "DEV_LOGIN_ENABLED: dev-login is a development tool and is refused when NODE_ENV=production (unset DEV_LOGIN_ENABLED, or use NODE_ENV=development for a demo)",
    ];
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
    problems.push(
      `JWT_TTL_SECONDS: ${parsed.JWT_TTL_SECONDS} exceeds JWT_MAX_TTL_SECONDS (${parsed.JWT_MAX_TTL_SECONDS}); tokens would be refused as soon as they are issued`,
    );
  }
  if (parsed.ACCESS_TOKEN_TTL_SECONDS > parsed.JWT_MAX_TTL_SECONDS) {
    problems.push(
      `ACCESS_TOKEN_TTL_SECONDS: ${parsed.ACCESS_TOKEN_TTL_SECONDS} exceeds JWT_MAX_TTL_SECONDS (${parsed.JWT_MAX_TTL_SECONDS}); tokens would be refused as soon as they are issued`,
    );
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

/** What a model call is for: it picks the model (below) and labels the call's usage row. */
export type LlmUseCase = "tutor" | "generation" | "admin" | "ingestion" | "summary";

type ModelSetting = "LLM_MODEL_TUTOR" | "LLM_MODEL_GENERATION" | "LLM_MODEL_ADMIN";

/**
 * The one use case → model table: the settings that choose a use case's model, most specific
 * first, with LLM_MODEL after them all. `ingestion` only labels embedding calls (their model is
 * EMBEDDING_MODEL), so no chat setting names it.
 */
const MODEL_SETTINGS: Record<LlmUseCase, readonly ModelSetting[]> = {
  tutor: ["LLM_MODEL_TUTOR"],
  generation: ["LLM_MODEL_GENERATION", "LLM_MODEL_TUTOR"],
  admin: ["LLM_MODEL_ADMIN"],
  ingestion: [],
  summary: ["LLM_MODEL_TUTOR"],
};

/** Which model (or comma-separated fallback chain) a use case runs on. */
export function modelFor(config: Config, useCase: LlmUseCase): string {
  for (const setting of MODEL_SETTINGS[useCase]) {
    const model = config[setting];
    if (model) return model;
  }
  return config.LLM_MODEL;
}

/** The setting an error about a use case's model should tell the operator to check. */
export function modelSettingOf(useCase: LlmUseCase): string {
  return MODEL_SETTINGS[useCase][0] ?? "LLM_MODEL";
}

/** Fails with a clear message when a process needs a variable the launcher normally sets. */
export function requireSetting<K extends keyof Config>(config: Config, key: K): NonNullable<Config[K]> {
  const value = config[key];
  if (value === undefined || value === null) {
    throw new ConfigError([`${String(key)}: is required for this process (npm start sets it in embedded mode)`]);
  }
  return value as NonNullable<Config[K]>;
}
