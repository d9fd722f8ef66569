/**
 * One family for everything the product refuses to do, wherever it is refused: a route checking
 * its input, a command whose state does not allow it, the data layer finding an admin action's
 * item can no longer run. A refusal carries what kind it is, a stable code and a sentence the
 * caller can show; it knows nothing of HTTP or sockets. `server/errors.ts` maps the kind to a
 * status once, the socket gateway relays code and message, and a job handler decides per kind
 * (an admin action item that is `rejected` fails that item; anything else retries the attempt).
 */

export type RefusalKind =
  /** The request itself is malformed or names something inconsistent (400). */
  | "invalid"
  /** No valid credentials (401). */
  | "unauthenticated"
  /** The organisation's AI allowance for the month is spent (402). */
  | "allowance_exhausted"
  /** Sent to a host name this deployment does not serve (421). */
  | "wrong_host"
  /** Authenticated, but not allowed to do or see this (403). */
  | "forbidden"
  /** Missing, or not the caller's: the same answer either way (404). */
  | "not_found"
  /** The state does not allow it now (409). */
  | "conflict"
  /** An Idempotency-Key sent again with a different request (422). */
  | "key_reused"
  /** Well-formed, but what it names cannot be used as asked (an identity provider that cannot be reached, a public mail domain as a company's) (422). */
  | "unprocessable"
  /** The body or file is larger than accepted (413). */
  | "too_large"
  /** The body's type is not one this endpoint takes (415). */
  | "unsupported_media"
  /** Too many requests; `details.retry_after` says when to try again (429). */
  | "rate_limited"
  /** A part the request needs cannot take it now; retry later (503). */
  | "unavailable"
  /** An admin action's item can no longer run as proposed; the item fails with this reason, the action goes on. */
  | "rejected";

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "Refusal";
  }

  /** The same 404 wording the API uses for any missing (or not the caller's) resource. */
  static notFound(what: string): Refusal {
    return new Refusal("not_found", "NOT_FOUND", `${what} not found`);
  }
}

/** The organisation changed since the proposal so that this admin action item cannot run (e.g. its target was deactivated). */
export class ItemRejected extends Refusal {
  constructor(reason: string) {
    super("rejected", "ITEM_REJECTED", reason);
    this.name = "ItemRejected";
  }
}

const RESET_DATE = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/**
 * The organisation's AI allowance is spent (402 AI_ALLOWANCE_EXHAUSTED): refused when a turn is
 * accepted ("accept": nothing was stored), or found before a model call of a turn already running
 * ("mid_turn": the turn ends there, no further model call is made). One code and one opening
 * sentence for both, so the client and the admin read the same thing wherever it is caught.
 */
export function allowanceExhaustedRefusal(resetsAt: Date, when: "accept" | "mid_turn"): Refusal {
  const after =
    when === "accept"
      ? "Your message was not sent. An administrator can ask for more credits to resume it sooner."
      : "This answer stopped here, before the next step. An administrator can ask for more credits to resume it sooner.";
  return new Refusal(
    "allowance_exhausted",
    "AI_ALLOWANCE_EXHAUSTED",
    `Your organisation has used this month's AI allowance, so the assistant is paused until ${RESET_DATE.format(resetsAt)}. ${after}`,
    { resets_at: resetsAt.toISOString() },
  );
}
