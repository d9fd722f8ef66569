/**
 * pino, configured once. Children carry `{component, queue, jobId, sessionId, turnId}` so a
 * turn can be followed across server and workers; secrets are redacted by path and by shape.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { pino, type Logger } from "pino";
import { ConfigError, logLevelSetting, parseConfig } from "./config";
import { activeTraceIds } from "./telemetry/spans";

const SECRET_PATTERN = /(Bearer\s+)[A-Za-z0-9._~+/=-]+|\bsk-[A-Za-z0-9_-]{8,}/g;

/** Removes bearer tokens and `sk-…` keys from any string that is about to be logged. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, (_match, bearer: string | undefined) => (bearer ? `${bearer}[redacted]` : "sk-[redacted]"));
}

/** Ids that every log line written inside a request or a job carries, whichever logger writes it. */
export interface LogContext {
  requestId?: string;
  queue?: string;
  jobId?: string;
  sessionId?: string;
  turnId?: string;
}

const logContext = new AsyncLocalStorage<LogContext>();

/**
 * Runs `fn` with ids that every log line inside it carries, nested contexts adding to outer
 * ones. This is what reaches loggers that were built before the request or job existed (the
 * LLM client's, the queue producer's), so one grep for a turn id finds their lines too.
 */
export function withLogContext<T>(bindings: LogContext, fn: () => T): T {
  const defined = Object.fromEntries(Object.entries(bindings).filter(([, value]) => value !== undefined && value !== null));
  return logContext.run({ ...logContext.getStore(), ...defined }, fn);
}

/** Runs `fn` with a request id that every log line inside it carries. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return withLogContext({ requestId }, fn);
}

/** Adds ids learnt mid-request (the turn a POST created) to the current context's later lines. */
export function addToLogContext(bindings: LogContext): void {
  const store = logContext.getStore();
  if (store) Object.assign(store, Object.fromEntries(Object.entries(bindings).filter(([, value]) => value !== undefined && value !== null)));
}

/** A Postgres error as pg raises it: SQLSTATE code, severity and the server routine that raised it. */
interface DatabaseErrorShape {
  name: string;
  code: string;
  severity: string;
  routine?: string;
}

function isDatabaseError(value: unknown): value is DatabaseErrorShape {
  const error = value as Partial<DatabaseErrorShape> | null;
  return !!error && typeof error === "object" && typeof error.code === "string" && typeof error.severity === "string";
}

/**
 * How an error is logged. A database error keeps its class, SQLSTATE code, severity and routine,
 * not its message: that carries the statement and Postgres quotes the offending values in it
 * (`invalid input syntax for type uuid: "…"`), which are org ids, emails, what people typed.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  if (isDatabaseError(error)) {
    // pg names every such error "error"; the class says what it is.
    const type = (error as object).constructor?.name ?? error.name;
    return { type, code: error.code, severity: error.severity, routine: error.routine, message: `database error ${error.code}` };
  }
  return pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
}

let root: Logger | undefined;

/**
 * LOG_LEVEL only, with the product schema's own rule for it: the root logger must not depend on
 * every other setting being valid (the offline model and the launcher's helpers log without the
 * product's configuration). A bad LOG_LEVEL fails the way the whole configuration does, naming
 * every bad variable at once, since a process's first log line often comes before its config.
 */
function logLevel(): string {
  const parsed = logLevelSetting.safeParse(process.env.LOG_LEVEL);
  if (parsed.success) return parsed.data;
  parseConfig(process.env);
  throw new ConfigError(parsed.error.issues.map((issue) => `LOG_LEVEL: ${issue.message}`));
}

/**
 * The keys a logger binds, read once per logger: pino's `bindings()` parses them back from the
 * logger's JSON on every call, a fifth of what a log line cost a worker (bench/optimisations.md
 * section 17). Bindings are never changed after a child is made here (no `setBindings`).
 */
const boundKeys = new WeakMap<object, ReadonlySet<string>>();
function boundKeysOf(logger: { bindings(): Record<string, unknown> }): ReadonlySet<string> {
  let keys = boundKeys.get(logger);
  if (!keys) boundKeys.set(logger, (keys = new Set(Object.keys(logger.bindings()))));
  return keys;
}

export function getLogger(): Logger {
  if (root) return root;
  root = pino({
    level: logLevel(),
    base: { pid: process.pid },
    serializers: { err: serializeError },
    redact: {
      paths: [
        "*.apiKey",
        "*.api_key",
        "*.password",
        "*.token",
        "*.authorization",
        "req.headers.authorization",
        "headers.authorization",
        "*.JWT_SECRET",
        "*.LLM_API_KEY",
        "*.EMBEDDING_API_KEY",
        // JSON lists whose entries carry keys: a config object logged by mistake shows neither.
        "*.LLM_FALLBACK_PROVIDERS",
        "*.EMBEDDING_FALLBACK_PROVIDERS",
      ],
      censor: "[redacted]",
    },
    mixin(_object, _level, logger) {
      // With tracing on, a line written inside a trace names it, so a log search leads to the trace and back.
      const traceIds = activeTraceIds();
      const store = logContext.getStore();
      if (!store) return traceIds ?? {};
      // A child logger may already bind the same ids; writing them twice would repeat JSON keys.
      const bound = boundKeysOf(logger);
      const ids = Object.fromEntries(Object.entries(store).filter(([key]) => !bound.has(key)));
      return traceIds ? { ...ids, ...traceIds } : ids;
    },
    hooks: {
      // Error messages from providers sometimes echo the key back; scrub every string argument.
      logMethod(args, method) {
        const cleaned = args.map((arg) => (typeof arg === "string" ? redactSecrets(arg) : arg));
        method.apply(this, cleaned as Parameters<typeof method>);
      },
    },
    formatters: {
      log(object) {
        const err = object.err as { message?: string; stack?: string } | undefined;
        if (err && typeof err === "object") {
          if (typeof err.message === "string") err.message = redactSecrets(err.message);
          if (typeof err.stack === "string") err.stack = redactSecrets(err.stack);
        }
        return object;
      },
    },
  });
  return root;
}

/** A child logger for one component (`server`, `worker`, `launcher`, …). */
export function componentLogger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return getLogger().child({ component, ...bindings });
}

/** Tests change LOG_LEVEL between runs; this drops the cached root logger. */
export function resetLogger(): void {
  root = undefined;
}
