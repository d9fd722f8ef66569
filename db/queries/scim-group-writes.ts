/**
 * The identity system's groups as written, inside the transaction of commands/scim-groups.ts
 * (which refuses unknown members and records the audit event). What a membership means is
 * applied by scim-mapping-writes.ts as members join and leave. Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import { SCIM_GROUP_COLUMNS, type ScimGroupFields, type ScimGroupRow } from "./scim-groups";
import { type GroupMapping, onJoined, onLeft, onRenamed } from "./scim-mapping-writes";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Member ids that are not people SCIM can see in this organisation (another org's ids included). */
export async function unknownMembers(trx: Knex.Transaction, orgId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const candidates = ids.filter((id) => UUID.test(id));
  const found = new Set(
    candidates.length === 0
      ? []
      : (await trx("users").where({ org_id: orgId }).whereNull("scim_deleted_at").whereNull("erasure_requested_at").whereIn("id", candidates).select("id")).map(
          (r: { id: string }) => r.id,
        ),
  );
  return ids.filter((id) => !found.has(id));
}

export async function groupMemberIds(trx: Knex.Transaction, groupId: string): Promise<string[]> {
  return (await trx("scim_group_members").where({ group_id: groupId }).select("user_id")).map((r: { user_id: string }) => r.user_id);
}

/** Makes the members exactly these (known people, checked by the caller); those who join or leave gain or lose what the mapping gives. */
export async function setMembers(trx: Knex.Transaction, group: ScimGroupRow, memberIds: readonly string[]): Promise<{ added: string[]; removed: string[] }> {
  const wanted = [...new Set(memberIds)];
  const current = new Set(await groupMemberIds(trx, group.id));
  const added = wanted.filter((id) => !current.has(id));
  const keep = new Set(wanted);
  const removed = [...current].filter((id) => !keep.has(id));
  if (removed.length > 0) await trx("scim_group_members").where({ group_id: group.id }).whereIn("user_id", removed).delete();
  if (added.length > 0) {
    // A concurrent request may have added the same member; joining twice changes nothing.
    await trx("scim_group_members")
      .insert(added.map((user_id) => ({ group_id: group.id, user_id, org_id: group.org_id })))
      .onConflict(["group_id", "user_id"])
      .ignore();
  }
  await onLeft(trx, group, removed);
  await onJoined(trx, group, added);
  return { added, removed };
}

export async function insertScimGroup(trx: Knex.Transaction, orgId: string, fields: ScimGroupFields): Promise<ScimGroupRow> {
  const [group] = await trx("scim_groups")
    .insert({ org_id: orgId, display_name: fields.display_name, external_id: fields.external_id })
    .returning(SCIM_GROUP_COLUMNS);
  return group as ScimGroupRow;
}

export async function lockScimGroup(trx: Knex.Transaction, orgId: string, groupId: string): Promise<ScimGroupRow | undefined> {
  return (await trx("scim_groups").where({ org_id: orgId, id: groupId }).forUpdate().first(SCIM_GROUP_COLUMNS)) as ScimGroupRow | undefined;
}

/** Renames the group; a department mapping renames its members' department with it. */
export async function renameScimGroup(trx: Knex.Transaction, before: ScimGroupRow, fields: ScimGroupFields): Promise<ScimGroupRow> {
  const [after] = (await trx("scim_groups")
    .where({ id: before.id })
    .update({ display_name: fields.display_name, external_id: fields.external_id, updated_at: trx.fn.now() })
    .returning(SCIM_GROUP_COLUMNS)) as ScimGroupRow[];
  await onRenamed(trx, after!, before.display_name);
  return after!;
}

export async function deleteScimGroupRow(trx: Knex.Transaction, groupId: string): Promise<void> {
  await trx("scim_groups").where({ id: groupId }).delete();
}

/** The new mapping; members lose what the old one gave them and get what the new one gives. */
export async function remapScimGroup(trx: Knex.Transaction, before: ScimGroupRow, mapping: GroupMapping): Promise<{ after: ScimGroupRow; members: string[] }> {
  const members = await groupMemberIds(trx, before.id);
  const [after] = (await trx("scim_groups")
    .where({ id: before.id })
    .update({ mapping, updated_at: trx.fn.now() })
    .returning(SCIM_GROUP_COLUMNS)) as ScimGroupRow[];
  await onLeft(trx, before, members);
  await onJoined(trx, after!, members);
  return { after: after!, members };
}
