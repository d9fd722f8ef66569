/**
 * What a SCIM group's membership means for its members, as the organisation's admin mapped it:
 * - `admin`: members are admins; a person who leaves their last admin-mapped group becomes an
 *   employee again (the identity system is then the source of who administers).
 * - `department`: joining sets the person's department to the group's name; leaving clears it
 *   (or moves it to another department-mapped group they are still in) unless it was since set
 *   to something else.
 * Run inside the transaction that changed the membership rows, after the change.
 */
import type { Knex } from "knex";

export type GroupMapping = "department" | "admin" | null;

interface MappedGroup {
  id: string;
  org_id: string;
  display_name: string;
  mapping: GroupMapping;
}

export async function onJoined(trx: Knex.Transaction, group: MappedGroup, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0 || !group.mapping) return;
  const people = trx("users").where({ org_id: group.org_id }).whereIn("id", userIds);
  if (group.mapping === "admin") await people.update({ role: "admin" });
  else await people.update({ department: group.display_name });
}

export async function onLeft(trx: Knex.Transaction, group: MappedGroup, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0 || !group.mapping) return;
  if (group.mapping === "admin") {
    await trx("users")
      .where({ org_id: group.org_id, role: "admin" })
      .whereIn("id", userIds)
      .whereNotExists((q) =>
        q
          .select(trx.raw("1"))
          .from("scim_group_members as m")
          .join("scim_groups as g", "g.id", "m.group_id")
          .whereRaw("m.user_id = users.id")
          .andWhere("g.mapping", "admin"),
      )
      .update({ role: "employee" });
    return;
  }
  const another = trx("scim_group_members as m")
    .join("scim_groups as g", "g.id", "m.group_id")
    .whereRaw("m.user_id = users.id")
    .andWhere("g.mapping", "department")
    .select("g.display_name")
    .orderBy("g.display_name")
    .limit(1);
  await trx("users")
    .where({ org_id: group.org_id, department: group.display_name })
    .whereIn("id", userIds)
    .update({ department: trx.raw("(?)", [another]) });
}

/** A department group renamed: its members whose department was the old name follow it. */
export async function onRenamed(trx: Knex.Transaction, group: MappedGroup, oldName: string): Promise<void> {
  if (group.mapping !== "department" || oldName === group.display_name) return;
  await trx("users")
    .where({ org_id: group.org_id, department: oldName })
    .whereIn("id", trx("scim_group_members").select("user_id").where({ group_id: group.id }))
    .update({ department: group.display_name });
}
