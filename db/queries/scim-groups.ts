/**
 * The identity system's groups and who is in them. A member is always a person of the same
 * organisation that SCIM can see; what membership means (department, admin, nothing) is the
 * group's `mapping`, set by the organisation's admin and applied by db/queries/scim-mapping.ts
 * whenever members join or leave, the group is renamed or removed, or its mapping changes.
 */
import type { Knex } from "knex";
import { Refusal } from "../../lib/refusal";
import type { Db } from "../knex";
import { refusingDuplicates } from "./unique-violation";
import { recordAudit } from "./audit-log";
import { type ScimActor, scimActor } from "./scim-audit";
import { type ScimCondition, type ScimWhere, applyScimWhere } from "./scim-filter";
import { type GroupMapping, onJoined, onLeft, onRenamed } from "./scim-mapping";

export interface ScimGroupRow {
  id: string;
  org_id: string;
  display_name: string;
  external_id: string | null;
  mapping: GroupMapping;
  created_at: Date;
  updated_at: Date;
}

export interface ScimMember {
  value: string;
  display: string;
}

export interface ScimGroupFields {
  display_name: string;
  external_id: string | null;
  /** The full set of member ids after the change; undefined leaves members as they are. */
  member_ids?: readonly string[];
}

const COLUMNS = ["id", "org_id", "display_name", "external_id", "mapping", "created_at", "updated_at"];

export const GROUP_FILTER_COLUMNS = {
  id: { column: "scim_groups.id::text" },
  displayName: { column: "display_name", caseInsensitive: true },
  externalId: { column: "external_id" },
} as const;

/** `members.value eq "<user id>"`: groups the person is in. */
const MEMBER_FILTERS = {
  "members.value": (q: Knex.QueryBuilder, condition: ScimCondition) =>
    q.whereExists((sub) =>
      sub
        .select(1)
        .from("scim_group_members as m")
        .whereRaw("m.group_id = scim_groups.id")
        .andWhereRaw("m.user_id::text = ?", [String(condition.value)]),
    ),
};

const taken = (): Refusal => new Refusal("conflict", "SCIM_UNIQUENESS", "A group with this displayName or externalId already exists");

export async function findScimGroup(db: Db, orgId: string, id: string): Promise<ScimGroupRow | undefined> {
  return db("scim_groups").where({ org_id: orgId, id }).first(COLUMNS);
}

export async function listScimGroups(
  db: Db,
  orgId: string,
  where: ScimWhere,
  page: { offset: number; limit: number },
): Promise<{ rows: ScimGroupRow[]; total: number }> {
  const base = db("scim_groups").where({ org_id: orgId });
  applyScimWhere(base, where, GROUP_FILTER_COLUMNS, MEMBER_FILTERS);
  const [counted] = await base.clone().count<{ count: string }[]>("* as count");
  const rows = page.limit === 0 ? [] : await base.select(COLUMNS).orderBy("created_at").orderBy("id").offset(page.offset).limit(page.limit);
  return { rows, total: Number(counted?.count ?? 0) };
}

/** The members of these groups, by group id (one query for a page of groups). */
export async function membersOfGroups(db: Db, orgId: string, groupIds: readonly string[]): Promise<Map<string, ScimMember[]>> {
  const byGroup = new Map<string, ScimMember[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return byGroup;
  const rows = await db("scim_group_members as m")
    .join("users as u", "u.id", "m.user_id")
    .where({ "m.org_id": orgId })
    .whereIn("m.group_id", groupIds)
    .select("m.group_id", "u.id", "u.name")
    .orderBy("m.created_at");
  for (const row of rows) byGroup.get(row.group_id)?.push({ value: row.id, display: row.name });
  return byGroup;
}

/** Member ids that are not people SCIM can see in this organisation (another org's ids included). */
async function unknownMembers(trx: Knex.Transaction, orgId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const candidates = ids.filter((id) => uuid.test(id));
  const found = new Set(
    candidates.length === 0
      ? []
      : (await trx("users").where({ org_id: orgId }).whereNull("scim_deleted_at").whereNull("erasure_requested_at").whereIn("id", candidates).select("id")).map(
          (r: { id: string }) => r.id,
        ),
  );
  return ids.filter((id) => !found.has(id));
}

async function setMembers(trx: Knex.Transaction, group: ScimGroupRow, memberIds: readonly string[]): Promise<{ added: string[]; removed: string[] }> {
  const wanted = [...new Set(memberIds)];
  const unknown = await unknownMembers(trx, group.org_id, wanted);
  if (unknown.length > 0) throw new Refusal("invalid", "SCIM_INVALID_VALUE", `No such user for members value: ${unknown.slice(0, 5).join(", ")}`);
  const current = new Set((await trx("scim_group_members").where({ group_id: group.id }).select("user_id")).map((r: { user_id: string }) => r.user_id));
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

export async function createScimGroup(db: Db, orgId: string, fields: ScimGroupFields, actor: ScimActor): Promise<ScimGroupRow> {
  return refusingDuplicates(taken, () =>
    db.transaction(async (trx) => {
      const [group] = (await trx("scim_groups")
        .insert({ org_id: orgId, display_name: fields.display_name, external_id: fields.external_id })
        .returning(COLUMNS)) as ScimGroupRow[];
      const { added } = await setMembers(trx, group!, fields.member_ids ?? []);
      await recordAudit(trx, {
        orgId,
        actor: scimActor(actor),
        name: "scim.group.created",
        target: { type: "scim_group", id: group!.id },
        before: null,
        after: { displayName: group!.display_name, externalId: group!.external_id },
        details: { added },
      });
      return group!;
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

export async function updateScimGroup(db: Db, orgId: string, id: string, change: GroupChange, actor: ScimActor): Promise<ScimGroupRow | undefined> {
  return refusingDuplicates(taken, () =>
    db.transaction(async (trx) => {
      const before = (await trx("scim_groups").where({ org_id: orgId, id }).forUpdate().first(COLUMNS)) as ScimGroupRow | undefined;
      if (!before) return undefined;
      const fields = await change(before, (await membersOfGroups(trx, orgId, [id])).get(id) ?? []);
      if (!fields) return before;
      const [after] = (await trx("scim_groups")
        .where({ id })
        .update({ display_name: fields.display_name, external_id: fields.external_id, updated_at: trx.fn.now() })
        .returning(COLUMNS)) as ScimGroupRow[];
      await onRenamed(trx, after!, before.display_name);
      const { added, removed } = fields.member_ids ? await setMembers(trx, after!, fields.member_ids) : { added: [], removed: [] };
      const renamed = before.display_name !== after!.display_name || before.external_id !== after!.external_id;
      if (renamed || added.length > 0 || removed.length > 0) {
        await recordAudit(trx, {
          orgId,
          actor: scimActor(actor),
          name: "scim.group.updated",
          target: { type: "scim_group", id: id },
          before: { displayName: before.display_name, externalId: before.external_id },
          after: { displayName: after!.display_name, externalId: after!.external_id },
          details: { added, removed },
        });
      }
      return after;
    }),
  );
}

/** Removes the group; its members lose what its mapping gave them. */
export async function deleteScimGroup(db: Db, orgId: string, id: string, actor: ScimActor): Promise<boolean> {
  return db.transaction(async (trx) => {
    const group = (await trx("scim_groups").where({ org_id: orgId, id }).forUpdate().first(COLUMNS)) as ScimGroupRow | undefined;
    if (!group) return false;
    const { removed } = await setMembers(trx, group, []);
    await trx("scim_groups").where({ id }).delete();
    await recordAudit(trx, {
      orgId,
      actor: scimActor(actor),
      name: "scim.group.deleted",
      target: { type: "scim_group", id: id },
      before: { displayName: group.display_name, externalId: group.external_id, mapping: group.mapping },
      after: null,
      details: { removed },
    });
    return true;
  });
}

export interface GroupSummary extends ScimGroupRow {
  member_count: number;
}

/** The admin console's list: every group with its mapping and how many members it has. */
export async function groupSummaries(db: Db, orgId: string): Promise<GroupSummary[]> {
  const rows = await db("scim_groups as g")
    .where("g.org_id", orgId)
    .select([...COLUMNS.map((c) => `g.${c}`), db.raw("(SELECT COUNT(*)::int FROM scim_group_members m WHERE m.group_id = g.id) AS member_count")])
    .orderBy("g.display_name");
  return rows;
}

/**
 * The admin's choice of what the group means; members lose what the old mapping gave them and
 * get what the new one gives. Undefined when the group is not the organisation's.
 */
export async function setGroupMapping(
  db: Db,
  input: { orgId: string; groupId: string; mapping: GroupMapping; actorId: string },
): Promise<ScimGroupRow | undefined> {
  return db.transaction(async (trx) => {
    const before = (await trx("scim_groups").where({ org_id: input.orgId, id: input.groupId }).forUpdate().first(COLUMNS)) as ScimGroupRow | undefined;
    if (!before) return undefined;
    if (before.mapping === input.mapping) return before;
    const members = (await trx("scim_group_members").where({ group_id: before.id }).select("user_id")).map((r: { user_id: string }) => r.user_id);
    const [after] = (await trx("scim_groups")
      .where({ id: before.id })
      .update({ mapping: input.mapping, updated_at: trx.fn.now() })
      .returning(COLUMNS)) as ScimGroupRow[];
    await onLeft(trx, before, members);
    await onJoined(trx, after!, members);
    await recordAudit(trx, {
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      name: "scim.group.mapping_changed",
      target: { type: "scim_group", id: before.id },
      before: { mapping: before.mapping },
      after: { mapping: after!.mapping },
      details: { members: members.length },
    });
    return after;
  });
}
