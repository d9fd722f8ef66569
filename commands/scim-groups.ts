/**
 * The identity system's groups through SCIM (create, update, delete; audited with the SCIM token
 * as the actor), and the admin's choice of what a group means (`scim.group.mapping_changed`).
 * Members must be people SCIM can see in the organisation (`400 SCIM_INVALID_VALUE`); what
 * joining or leaving gives them is the mapping's (db/queries/scim-mapping-writes.ts).
 */
import { recordAudit } from "../db/queries/audit-log";
import { type ScimActor, scimActor } from "../db/queries/scim-audit";
import {
  deleteScimGroupRow,
  insertScimGroup,
  lockScimGroup,
  remapScimGroup,
  renameScimGroup,
  setMembers,
  unknownMembers,
} from "../db/queries/scim-group-writes";
import { membersOfGroups, type ScimGroupFields, type ScimGroupRow, type ScimMember } from "../db/queries/scim-groups";
import type { GroupMapping } from "../db/queries/scim-mapping-writes";
import { refusingDuplicates } from "../db/queries/unique-violation";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { type Transaction, withTransaction } from "./transaction";

type ScimDeps = Pick<CommandDeps, "db">;

const taken = (): Refusal => new Refusal("conflict", "SCIM_UNIQUENESS", "A group with this displayName or externalId already exists");

async function setKnownMembers(trx: Transaction, group: ScimGroupRow, memberIds: readonly string[]): Promise<{ added: string[]; removed: string[] }> {
  const unknown = await unknownMembers(trx, group.org_id, [...new Set(memberIds)]);
  if (unknown.length > 0) throw new Refusal("invalid", "SCIM_INVALID_VALUE", `No such user for members value: ${unknown.slice(0, 5).join(", ")}`);
  return setMembers(trx, group, memberIds);
}

export async function createScimGroup(deps: ScimDeps, orgId: string, fields: ScimGroupFields, actor: ScimActor): Promise<ScimGroupRow> {
  return refusingDuplicates(taken, () =>
    withTransaction(deps, async (trx) => {
      const group = await insertScimGroup(trx, orgId, fields);
      const { added } = await setKnownMembers(trx, group, fields.member_ids ?? []);
      await recordAudit(trx, {
        name: "scim.group.created",
        orgId,
        actor: scimActor(actor),
        target: { type: "scim_group", id: group.id },
        after: { displayName: group.display_name, externalId: group.external_id },
        details: { added },
      });
      return group;
    }),
  );
}

/**
 * The new state from the current one (PUT: what the request says; PATCH: the operations applied
 * to the group and its members as they are now), or null for no change. Called with the group's
 * row locked, so two concurrent PATCHes of one group (members added by separate requests) each
 * apply to the other's result instead of one undoing the other.
 */
export type GroupChange = (current: ScimGroupRow, members: ScimMember[]) => Promise<ScimGroupFields | null>;

export async function updateScimGroup(deps: ScimDeps, orgId: string, id: string, change: GroupChange, actor: ScimActor): Promise<ScimGroupRow | undefined> {
  return refusingDuplicates(taken, () =>
    withTransaction(deps, async (trx) => {
      const before = await lockScimGroup(trx, orgId, id);
      if (!before) return undefined;
      const fields = await change(before, (await membersOfGroups(trx, orgId, [id])).get(id) ?? []);
      if (!fields) return before;
      const after = await renameScimGroup(trx, before, fields);
      const { added, removed } = fields.member_ids ? await setKnownMembers(trx, after, fields.member_ids) : { added: [], removed: [] };
      const renamed = before.display_name !== after.display_name || before.external_id !== after.external_id;
      if (renamed || added.length > 0 || removed.length > 0) {
        await recordAudit(trx, {
          name: "scim.group.updated",
          orgId,
          actor: scimActor(actor),
          target: { type: "scim_group", id },
          before: { displayName: before.display_name, externalId: before.external_id },
          after: { displayName: after.display_name, externalId: after.external_id },
          details: { added, removed },
        });
      }
      return after;
    }),
  );
}

/** Removes the group; its members lose what its mapping gave them. */
export async function deleteScimGroup(deps: ScimDeps, orgId: string, id: string, actor: ScimActor): Promise<boolean> {
  return withTransaction(deps, async (trx) => {
    const group = await lockScimGroup(trx, orgId, id);
    if (!group) return false;
    const { removed } = await setMembers(trx, group, []);
    await deleteScimGroupRow(trx, id);
    await recordAudit(trx, {
      name: "scim.group.deleted",
      orgId,
      actor: scimActor(actor),
      target: { type: "scim_group", id },
      before: { displayName: group.display_name, externalId: group.external_id, mapping: group.mapping },
      details: { removed },
    });
    return true;
  });
}

/**
 * The admin's choice of what the group means; members lose what the old mapping gave them and
 * get what the new one gives. Undefined when the group is not the organisation's.
 */
export async function setGroupMapping(
  deps: ScimDeps,
  input: { orgId: string; groupId: string; mapping: GroupMapping; actorId: string },
): Promise<ScimGroupRow | undefined> {
  return withTransaction(deps, async (trx) => {
    const before = await lockScimGroup(trx, input.orgId, input.groupId);
    if (!before) return undefined;
    if (before.mapping === input.mapping) return before;
    const { after, members } = await remapScimGroup(trx, before, input.mapping);
    await recordAudit(trx, {
      name: "scim.group.mapping_changed",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "scim_group", id: before.id },
      before: { mapping: before.mapping },
      after: { mapping: after.mapping },
      details: { members: members.length },
    });
    return after;
  });
}
