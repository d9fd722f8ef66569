/**
 * Who acts in SCIM provisioning: the organisation's SCIM token (no person), so its audit events
 * have `actor_id` null and `details.actor` names the token by id and hint; an admin's own changes
 * to SCIM (rotating the token, mapping a group) carry their id as usual.
 */
import type { AuditActor } from "./audit-log";

export interface ScimActor {
  tokenId: string;
  hint: string;
}

export const scimActor = (actor: ScimActor): AuditActor => ({ type: "scim_token", id: actor.tokenId, hint: actor.hint });
