/**
 * A command that does not happen says why with a `CommandRefused`: a stable code, a sentence the
 * caller can show, and what kind of refusal it is. Commands know nothing of HTTP or sockets;
 * `server/errors.ts` maps the kind to a status, the socket gateway relays code and message, and
 * a job handler lets it fail the attempt (so it retries).
 */
import type { Transition } from "../db/queries/admin-actions";

/** An admin action's status change that did not happen, and the status that stopped it (the caller words it). */
export type TransitionRefused = { kind: "refused"; transition: Extract<Transition, { ok: false }> };

export type RefusalKind = "not_found" | "conflict" | "unavailable";

export class CommandRefused extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CommandRefused";
  }

  /** The same 404 wording the API uses for any missing (or not the caller's) resource. */
  static notFound(what: string): CommandRefused {
    return new CommandRefused("not_found", "NOT_FOUND", `${what} not found`);
  }
}
