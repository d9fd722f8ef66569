/**
 * The one writer of `audit_log`. Every state change records exactly one `AuditEvent` in the
 * transaction of the command that made it (STYLE.md, "Domain work"), so the change and its record
 * commit together or not at all. An event's name is chosen once, here, as a member of the union:
 * a command cannot invent `identity_provider.set` beside `identity_provider.saved`.
 *
 * Add a new event by adding its name to `AUDIT_EVENT_NAMES` (grouped by aggregate) — the compiler
 * then accepts it in `recordAudit` and the names test lists it.
 */
import type { Knex } from "knex";

export const AUDIT_EVENT_NAMES = [
  // Filled by the commands of each aggregate (people, organisation, identity provider, domains,
  // integration keys, retention, allowance, SCIM, catalog, documents, operations, admin actions).
  "person.erased",
  // An operator changed an organisation's policy (commands/organisation-policy.ts).
  "organisation.policy_changed",
] as const;

export type AuditEventName = (typeof AUDIT_EVENT_NAMES)[number];

/** What the event changed: a table's row (`user`, `organization`, `identity_provider`, …) by id. */
export interface AuditTarget {
  type: string;
  id: string;
}

/**
 * Who made the change: a person (an admin, the person themselves), the organisation's SCIM token,
 * an integration key, or the operator (CLI / ops API: no person).
 */
export type AuditActor =
  | { type: "person"; id: string }
  | { type: "scim_token"; id: string; hint: string }
  | { type: "integration_key"; id: string; personId: string | null }
  | { type: "operator" }
  | { type: "system" };

export interface AuditEvent {
  name: AuditEventName;
  orgId: string;
  actor: AuditActor;
  target: AuditTarget;
  /** The target's state before and after, for the fields the change touched (null: none). */
  before?: unknown;
  after?: unknown;
  /** Anything else a reader of the log needs (a label, a count), never secrets. */
  details?: Record<string, unknown>;
  /** An admin action's run: the proposal, its item and who confirmed (the assistant's writes only). */
  adminAction?: { actionId: string; itemId: string; confirmedBy: string | null; resumedBy: string | null };
}

function actorPersonId(actor: AuditActor): string | null {
  if (actor.type === "person") return actor.id;
  if (actor.type === "integration_key") return actor.personId;
  return null;
}

/** Details as stored: a non-person actor is named there, since `actor_id` holds people only. */
function storedDetails(event: AuditEvent): Record<string, unknown> | null {
  const { actor } = event;
  const named =
    actor.type === "scim_token"
      ? { actor: { type: actor.type, id: actor.id, hint: actor.hint } }
      : actor.type === "integration_key"
        ? { actor: { type: actor.type, id: actor.id } }
        : actor.type === "operator" || actor.type === "system"
          ? { actor: { type: actor.type } }
          : {};
  const details = { ...(event.details ?? {}), ...named };
  return Object.keys(details).length > 0 ? details : null;
}

const asJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/** Records one event in the caller's transaction (never its own: the event belongs to the change). */
export async function recordAudit(trx: Knex.Transaction, event: AuditEvent): Promise<void> {
  const details = storedDetails(event);
  await trx("audit_log").insert({
    org_id: event.orgId,
    actor_id: actorPersonId(event.actor),
    action: event.name,
    target_type: event.target.type,
    target_id: event.target.id,
    details: details === null ? null : JSON.stringify(details),
    before: asJson(event.before),
    after: asJson(event.after),
    ...(event.adminAction
      ? {
          action_id: event.adminAction.actionId,
          action_item_id: event.adminAction.itemId,
          confirmed_by: event.adminAction.confirmedBy,
          resumed_by: event.adminAction.resumedBy,
        }
      : {}),
  });
}
