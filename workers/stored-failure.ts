/**
 * What a long operation's record (an erasure, an export, an organisation's deletion) says when
 * its last attempt failed: a code and a fixed sentence, never the error's own text. A database
 * error's message starts with its SQL statement, and Postgres quotes offending values in it (an
 * email, an id, what someone typed); those records are read back through the API by admins and
 * operators. The error itself is logged by the worker host (serialised without its message).
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

export function storedFailureOf(error: unknown): StoredFailure {
  if (isStatementTimeout(error)) return { code: "DATABASE_TIMEOUT", message: `A database statement took too long; ${SEE_LOG}` };
  if (isDatabaseUnavailable(error)) return { code: "DATABASE_UNAVAILABLE", message: `The database could not be reached; ${SEE_LOG}` };
  if (isDatabaseError(error)) return { code: "DATABASE_ERROR", message: `A database error stopped it; ${SEE_LOG}` };
  return { code: "INTERNAL_ERROR", message: `An unexpected error stopped it; ${SEE_LOG}` };
}
