/**
 * The audit rows of SCIM provisioning. The actor is the organisation's SCIM token (no person), so
 * `actor_id` stays null and `details.actor` names the token by id and hint; an admin's own changes
 * to SCIM (rotating the token, mapping a group) carry their id as usual.
 */
import type { Knex } from "knex";

export interface ScimActor {
  tokenId: string;
  hint: string;
}

export interface ScimAuditEntry {
  orgId: string;
  action: string;
  targetType: "user" | "scim_group" | "scim_token";
  targetId: string;
  /** The SCIM token that made the change; omitted for an admin's change (then `actorId`). */
  scim?: ScimActor;
  actorId?: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  details?: Record<string, unknown>;
}

export async function recordScimAudit(db: Knex | Knex.Transaction, entry: ScimAuditEntry): Promise<void> {
  await db("audit_log").insert({
    org_id: entry.orgId,
    actor_id: entry.actorId ?? null,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    details: JSON.stringify({
      ...(entry.details ?? {}),
      ...(entry.scim ? { actor: { type: "scim_token", id: entry.scim.tokenId, hint: entry.scim.hint } } : {}),
    }),
    before: entry.before === undefined ? null : JSON.stringify(entry.before),
    after: entry.after === undefined ? null : JSON.stringify(entry.after),
  });
}
