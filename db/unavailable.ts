/**
 * Whether an error means "Postgres cannot be reached right now" rather than "this query is
 * wrong": refused or dropped connections, a server shutting down or starting up, a pool that
 * could not connect. Workers wait such an outage out instead of spending a job's attempts on it.
 */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, class 08: connection exceptions,
// 53300 too_many_connections (no slot for a new pooled connection until others close).
const SQLSTATES = /^(57P0[123]|08\w{3}|53300)$/;
const MESSAGES =
  /Connection terminated|Knex: Timeout acquiring a connection|Client has encountered a connection error|connect ECONNREFUSED|Connection ended unexpectedly/i;

/** Postgres cancelled the statement because statement_timeout ran out (57014, query_canceled). */
export function isStatementTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === "57014";
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (NETWORK_CODES.has(code) || SQLSTATES.test(code))) return true;
    if (typeof message === "string" && MESSAGES.test(message)) return true;
  }
  return false;
}

// 57014 statement timeout, 40001 serialization failure, 40P01 deadlock: the same statement may pass a moment later.
const RETRYABLE_SQLSTATES = new Set(["57014", "40001", "40P01"]);

/**
 * Whether a failed query is worth retrying as it is: the database was unreachable or restarting
 * (the codes above), the pool had no connection for it in time (Knex's timeout error), or the
 * statement was cancelled by statement_timeout or lost a deadlock. Decided by error codes and
 * class only — never by message text, which drivers and locales word differently.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    // Knex's pool timeout is a class of its own (its name is the class's; ESM builds do not export the class itself).
    if ((current as { name?: unknown }).name === "KnexTimeoutError") return true;
    const { code } = current as { code?: unknown };
    if (typeof code === "string" && (NETWORK_CODES.has(code) || SQLSTATES.test(code) || RETRYABLE_SQLSTATES.has(code))) return true;
  }
  return false;
}
