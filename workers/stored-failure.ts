/**
 * What a long operation's record (an erasure, an export, an organisation's deletion) says when
 * its last attempt failed: a code and a fixed sentence, never the error's own text. A database
 * error's message starts with its SQL statement, and Postgres quotes offending values in it (an
 * email, an id, what someone typed); those records are read back through the API by admins and
 * operators. The error itself is logged by the worker host (serialised without its message).
 *
 * The same holds for what BullMQ keeps of a failed attempt (its failed reason and stack trace,
 * 14 days, shown in Bull Board): a database error is rethrown as a DatabaseJobError naming only
 * its SQLSTATE code (jobFailureReason), never the statement or the values Postgres quotes.
 */
import { isDatabaseUnavailable, isStatementTimeout } from "../db/unavailable";

export type StoredFailureCode = "DATABASE_TIMEOUT" | "DATABASE_UNAVAILABLE" | "DATABASE_ERROR" | "INTERNAL_ERROR";

export interface StoredFailure {
  code: StoredFailureCode;
  message: string;
}

const SEE_LOG = "the details are in the server log; asking again resumes where it stopped.";

const isDatabaseError = (error: unknown): boolean => {
  const shape = error as { code?: unknown; severity?: unknown } | null;
  return !!shape && typeof shape === "object" && typeof shape.code === "string" && typeof shape.severity === "string";
};

/** A database error as BullMQ keeps it: its SQLSTATE code, not its message. */
export class DatabaseJobError extends Error {
  constructor(readonly code: string) {
    super(`database error ${code}; the details are in the worker log`);
    this.name = "DatabaseJobError";
  }
}

/** What a failed attempt throws to BullMQ: a database error without its text, anything else as it is. */
export function jobFailureReason(error: unknown): unknown {
  return isDatabaseError(error) ? new DatabaseJobError((error as { code: string }).code) : error;
}

export function storedFailureOf(error: unknown): StoredFailure {
  if (isStatementTimeout(error)) return { code: "DATABASE_TIMEOUT", message: `A database statement took too long; ${SEE_LOG}` };
  if (isDatabaseUnavailable(error)) return { code: "DATABASE_UNAVAILABLE", message: `The database could not be reached; ${SEE_LOG}` };
  if (isDatabaseError(error)) return { code: "DATABASE_ERROR", message: `A database error stopped it; ${SEE_LOG}` };
  return { code: "INTERNAL_ERROR", message: `An unexpected error stopped it; ${SEE_LOG}` };
}
