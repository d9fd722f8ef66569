/**
 * The person who sent a turn may no longer have it answered: deactivated (or deleted) while the
 * turn waited in the queue, or, for an admin turn, no longer an admin. The turn ends before any
 * model call — nothing is generated, stored as an answer or charged to the organisation — with an
 * `error` that says why. Unrecoverable: a retry would find the same account. A class, so the
 * failure path recognises it by type, never by the wording of its message.
 */
import { UnrecoverableError } from "bullmq";

export type RevokedCode = "ACCOUNT_INACTIVE" | "FORBIDDEN";

const MESSAGES: Record<RevokedCode, string> = {
  ACCOUNT_INACTIVE: "This account has been deactivated, so this message was not answered.",
  FORBIDDEN: "This account is no longer an admin, so the admin assistant did not answer this message.",
};

export class CallerRevokedError extends UnrecoverableError {
  readonly userMessage: string;

  constructor(readonly code: RevokedCode) {
    super(code === "ACCOUNT_INACTIVE" ? "the caller's account is no longer active" : "the caller is no longer an admin");
    this.name = "CallerRevokedError";
    this.userMessage = MESSAGES[code];
  }
}
