/**
 * The identity system's groups and who is in them. A member is always a person of the same
 * organisation that SCIM can see; what membership means (department, admin, nothing) is the
 * group's `mapping`, set by the organisation's admin and applied by db/queries/scim-mapping-writes.ts
 * whenever members join or leave, the group is renamed or removed, or its mapping changes. The
 * changes are commands/scim-groups.ts's; scim-group-writes.ts is their table access.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { type ScimCondition, type ScimWhere, applyScimWhere } from "./scim-filter";
import type { GroupMapping } from "./scim-mapping-writes";

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

export const SCIM_GROUP_COLUMNS = ["id", "org_id", "display_name", "external_id", "mapping", "created_at", "updated_at"];

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

export async function findScimGroup(db: Db, orgId: string, id: string): Promise<ScimGroupRow | undefined> {
  return db("scim_groups").where({ org_id: orgId, id }).first(SCIM_GROUP_COLUMNS);
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
  const rows = page.limit === 0 ? [] : await base.select(SCIM_GROUP_COLUMNS).orderBy("created_at").orderBy("id").offset(page.offset).limit(page.limit);
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

export interface GroupSummary extends ScimGroupRow {
  member_count: number;
}

/** The admin console's list: every group with its mapping and how many members it has. */
export async function groupSummaries(db: Db, orgId: string): Promise<GroupSummary[]> {
  const rows = await db("scim_groups as g")
    .where("g.org_id", orgId)
    .select([...SCIM_GROUP_COLUMNS.map((c) => `g.${c}`), db.raw("(SELECT COUNT(*)::int FROM scim_group_members m WHERE m.group_id = g.id) AS member_count")])
    .orderBy("g.display_name");
  return rows;
}
