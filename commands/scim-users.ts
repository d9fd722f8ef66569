/**
 * The organisation's identity system provisions its people through SCIM: create (or bring back
 * one a SCIM DELETE removed), update, deactivate, delete. Each change is audited once with the
 * SCIM token as the actor (`scim.user.*`), and deactivating someone revokes their refresh tokens
 * in the same transaction (their open sockets are cut by the servers' re-check within
 * SOCKET_REAUTH_INTERVAL_MS). The rule every path that adds an address applies — an address
 * another organisation keeps is refused, naming neither reason — is checked here, as in
 * commands/manage-people.ts.
 */
import { recordAudit } from "../db/queries/audit-log";
import { emailKeptByAnotherOrganisation } from "../db/queries/organisation-domains";
import { revokeRefreshTokensOfUser } from "../db/queries/refresh-tokens";
import { type ScimActor, scimActor } from "../db/queries/scim-audit";
import { onLeft } from "../db/queries/scim-mapping-writes";
import {
  emailHeldByOther,
  holderOfEmail,
  insertScimUser,
  leaveAllScimGroups,
  lockScimUser,
  markScimDeleted,
  restoreScimUser,
  updateScimUserRow,
} from "../db/queries/scim-user-writes";
import type { ScimUserFields, ScimUserRow } from "../db/queries/scim-users";
import { refusingDuplicates } from "../db/queries/unique-violation";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { cutSocketsOnCommit } from "./cut-sockets";
import { withTransaction } from "./transaction";

type ScimDeps = Pick<CommandDeps, "db" | "redis">;

const taken = (): Refusal => new Refusal("conflict", "SCIM_UNIQUENESS", "userName or externalId is already in use by another person");
/**
 * An address another organisation keeps (someone there has it, or it verified the domain:
 * organisation-domains.ts): one answer for both reasons, so it says neither (review F15).
 */
const keptElsewhere = (): Refusal =>
  new Refusal(
    "conflict",
    "SCIM_UNIQUENESS",
    "userName cannot be provisioned in this organisation: the address, or its domain, belongs to another organisation",
  );

const audited = (row: ScimUserRow) => ({
  userName: row.email,
  name: row.name,
  externalId: row.external_id,
  active: row.is_active,
  title: row.job_title,
  department: row.department,
  role: row.role,
});

/**
 * Creates the person, or brings back the one a SCIM DELETE removed from this organisation (same
 * id, their chats intact). An address another organisation keeps, or one someone here already
 * has, is a 409 (the first never says which organisation or why).
 */
export async function createScimUser(deps: ScimDeps, orgId: string, fields: ScimUserFields, actor: ScimActor): Promise<ScimUserRow> {
  return refusingDuplicates(taken, () =>
    withTransaction(deps, async (trx) => {
      const existing = await holderOfEmail(trx, fields.email);
      if (await emailKeptByAnotherOrganisation(trx, orgId, fields.email)) throw keptElsewhere();
      // A person being erased is not restored: their address is free again once the erasure has anonymised the row.
      if (existing && (existing.org_id !== orgId || !existing.scim_deleted_at || existing.erasure_requested_at)) throw taken();
      const row = existing ? await restoreScimUser(trx, existing.id, fields) : await insertScimUser(trx, orgId, fields);
      await recordAudit(trx, {
        name: existing ? "scim.user.restored" : "scim.user.created",
        orgId,
        actor: scimActor(actor),
        target: { type: "user", id: row.id },
        after: audited(row),
      });
      return row;
    }),
  );
}

/** The new state from the current one, or null for no change; called with the person's row locked (see GroupChange). */
export type UserChange = (current: ScimUserRow) => Promise<ScimUserFields | null>;

/** Applies the new state (PUT, or PATCH applied to the locked row); audits only what changed. */
export async function updateScimUser(deps: ScimDeps, orgId: string, id: string, change: UserChange, actor: ScimActor): Promise<ScimUserRow | undefined> {
  return refusingDuplicates(taken, () =>
    withTransaction(deps, async (trx) => {
      const before = await lockScimUser(trx, orgId, id);
      if (!before) return undefined;
      const fields = await change(before);
      if (!fields) return before;
      if (fields.email !== before.email && (await emailKeptByAnotherOrganisation(trx, orgId, fields.email))) throw keptElsewhere();
      if (fields.email !== before.email && (await emailHeldByOther(trx, fields.email, id))) throw taken();
      const deactivated = before.is_active && !fields.is_active;
      const reactivated = !before.is_active && fields.is_active;
      const after = await updateScimUserRow(trx, orgId, id, fields, deactivated ? "deactivated" : reactivated ? "reactivated" : "unchanged");
      if (deactivated) {
        await revokeRefreshTokensOfUser(trx, orgId, id);
        cutSocketsOnCommit(trx, deps, id);
      }
      const [was, is] = [audited(before), audited(after)];
      const changed = (Object.keys(is) as Array<keyof typeof is>).filter((key) => was[key] !== is[key]);
      if (changed.length > 0) {
        await recordAudit(trx, {
          name: deactivated ? "scim.user.deactivated" : reactivated ? "scim.user.reactivated" : "scim.user.updated",
          orgId,
          actor: scimActor(actor),
          target: { type: "user", id },
          before: Object.fromEntries(changed.map((key) => [key, was[key]])),
          after: Object.fromEntries(changed.map((key) => [key, is[key]])),
        });
      }
      return after;
    }),
  );
}

/**
 * SCIM DELETE: the person is deactivated, leaves every group (with what the groups' mappings
 * gave them), loses their refresh tokens and disappears from SCIM (404 from now on). Nothing
 * they wrote is erased. False when there was no such person.
 */
export async function deleteScimUser(deps: ScimDeps, orgId: string, id: string, actor: ScimActor): Promise<boolean> {
  return withTransaction(deps, async (trx) => {
    const before = await lockScimUser(trx, orgId, id);
    if (!before) return false;
    const groups = await leaveAllScimGroups(trx, orgId, id);
    for (const group of groups) await onLeft(trx, group, [id]);
    await markScimDeleted(trx, orgId, id, before.is_active);
    await revokeRefreshTokensOfUser(trx, orgId, id);
    cutSocketsOnCommit(trx, deps, id);
    await recordAudit(trx, {
      name: "scim.user.deleted",
      orgId,
      actor: scimActor(actor),
      target: { type: "user", id },
      before: audited(before),
      details: { left_groups: groups.map((g) => g.id) },
    });
    return true;
  });
}
