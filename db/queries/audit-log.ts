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
  // People: an admin's changes (console, API, CLI), a first sign-in, a role the provider gave.
  "person.created",
  "person.updated",
  "person.deactivated",
  "person.reactivated",
  "person.provisioned",
  "person.role_synced",
  // The person chose the language of their pages.
  "person.page_language_changed",
  // A person's data (the long operations write these through the same writer).
  "person.export_requested",
  "person.export_downloaded",
  "person.erased",
  // SCIM: the directory's token provisions people and groups; an admin rotates the token and maps groups.
  "scim.user.created",
  "scim.user.restored",
  "scim.user.updated",
  "scim.user.deactivated",
  "scim.user.reactivated",
  "scim.user.deleted",
  "scim.group.created",
  "scim.group.updated",
  "scim.group.deleted",
  "scim.group.mapping_changed",
  "scim.token.created",
  "scim.token.rotated",
  "scim.token.revoked",
  // The organisation's sign-in.
  "identity_provider.created",
  "identity_provider.updated",
  "identity_provider.removed",
  "organisation_domain.added",
  "organisation_domain.verified",
  "organisation_domain.removed",
  "organisation_domain.approved",
  // The operator's changes to organisations (recorded in the operator's own organisation).
  "organization.created",
  "organization.renamed",
  "organization.updated",
  "organization.deletion_requested",
  // Integrations: a key's life, and every request made with a write scope.
  "integration_key.created",
  "integration_key.revoked",
  "integration_key.write_requested",
  // Organisation policy.
  "retention.updated",
  "ai_allowance.updated",
  "ai_credits.added",
  // Documents: an admin's or an integration key's changes (an upload or new version, by whoever sent it).
  "document.uploaded",
  "document.version_uploaded",
  "document.access_changed",
  "document.renamed",
  "document.deleted",
  // A person's own chats.
  "chat_session.deleted",
  // The assistant's proposals: made for an admin, stopped and resumed by one.
  "admin_action.proposed",
  "admin_action.stopped",
  "admin_action.resumed",
  // A resume whose run the queue refused: nothing ran, its items failed again with the reason (partial or failed, resumable).
  "admin_action.resume_failed",
  // The assistant's confirmed actions: one row per applied item (`details.tool` names the tool).
  "admin_action.item_applied",
  // An operator changed an organisation's policy (commands/organisation-policy.ts).
  "organization.policy_changed",
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
  | { type: "integration_key"; id: string; personId: string | null; name?: string; hint?: string }
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

/**
 * Details as stored: a token or key acting is named there, since `actor_id` holds people only.
 * The operator and the system are `actor_id` null (the operator's change says `details.via`).
 */
function storedDetails(event: AuditEvent): Record<string, unknown> | null {
  const { actor } = event;
  const named =
    actor.type === "scim_token"
      ? { actor: { type: actor.type, id: actor.id, hint: actor.hint } }
      : actor.type === "integration_key"
        ? { actor: { type: actor.type, id: actor.id, ...(actor.name !== undefined ? { name: actor.name, hint: actor.hint } : {}) } }
        : {};
  const details = { ...(event.details ?? {}), ...named };
  return Object.keys(details).length > 0 ? details : null;
}

const asJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * Records one event in the caller's transaction (never its own: the event belongs to the change).
 * An admin action's item is recorded once whatever happens (a unique index on its item id): a
 * second record of the same item is ignored, as the item itself is applied once.
 */
export async function recordAudit(trx: Knex.Transaction, event: AuditEvent): Promise<void> {
  const details = storedDetails(event);
  const row = {
    org_id: event.orgId,
    actor_id: actorPersonId(event.actor),
    action: event.name,
    target_type: event.target.type,
    target_id: event.target.id,
    details: details === null ? null : JSON.stringify(details),
    before: asJson(event.before),
    after: asJson(event.after),
  };
  if (!event.adminAction) {
    await trx("audit_log").insert(row);
    return;
  }
  await trx("audit_log")
    .insert({
      ...row,
      action_id: event.adminAction.actionId,
      action_item_id: event.adminAction.itemId,
      confirmed_by: event.adminAction.confirmedBy,
      resumed_by: event.adminAction.resumedBy,
    })
    .onConflict("action_item_id")
    .ignore();
}
