/** An admin action's status change that did not happen, and the status that stopped it (the caller words it). */
import type { Transition } from "../db/queries/admin-actions";

export type TransitionRefused = { kind: "refused"; transition: Extract<Transition, { ok: false }> };
