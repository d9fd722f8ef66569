/**
 * People as SCIM writes them, inside the transaction of commands/scim-users.ts (which checks
 * uniqueness and the addresses other organisations keep, and records the audit event). Nothing
 * here opens a transaction.
 */
import type { Knex } from "knex";
import { statedPageLocale } from "./page-locale-writes";
import type { ScimGroupRow } from "./scim-groups";
import { SCIM_USER_COLUMNS, type ScimUserFields, type ScimUserRow, visibleScimUsers } from "./scim-users";

const writable = (fields: ScimUserFields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<ScimUserFields>;
/** `preferredLanguage` also states the language of the person's pages, unless they chose one themselves. */
const statedLanguage = (trx: Knex.Transaction, fields: ScimUserFields) => (fields.locale ? { page_locale: statedPageLocale(trx, fields.locale) } : {});

/** Whoever has the address, in any organisation, with whether SCIM removed them or their erasure was asked for. */
export async function holderOfEmail(
  trx: Knex.Transaction,
  email: string,
): Promise<{ id: string; org_id: string; scim_deleted_at: Date | null; erasure_requested_at: Date | null } | undefined> {
  return trx("users").where({ email }).first("id", "org_id", "scim_deleted_at", "erasure_requested_at");
}

/** Whether someone other than this person has the address. */
export async function emailHeldByOther(trx: Knex.Transaction, email: string, userId: string): Promise<boolean> {
  return Boolean(await trx("users").where({ email }).whereNot({ id: userId }).first("id"));
}

/** A new employee as SCIM provisions them. */
export async function insertScimUser(trx: Knex.Transaction, orgId: string, fields: ScimUserFields): Promise<ScimUserRow> {
  const [row] = await trx("users")
    .insert({
      ...writable(fields),
      ...(fields.locale ? { page_locale: fields.locale } : {}),
      deactivated_at: fields.is_active ? null : trx.fn.now(),
      org_id: orgId,
      role: "employee",
      provisioned_via: "scim",
    })
    .returning(SCIM_USER_COLUMNS);
  return row as ScimUserRow;
}

/** Brings back the person a SCIM DELETE removed (same id, their chats intact). */
export async function restoreScimUser(trx: Knex.Transaction, userId: string, fields: ScimUserFields): Promise<ScimUserRow> {
  const [row] = await trx("users")
    .where({ id: userId })
    .update({ ...writable(fields), ...statedLanguage(trx, fields), deactivated_at: fields.is_active ? null : trx.fn.now(), scim_deleted_at: null })
    .returning(SCIM_USER_COLUMNS);
  return row as ScimUserRow;
}

export async function lockScimUser(trx: Knex.Transaction, orgId: string, userId: string): Promise<ScimUserRow | undefined> {
  return (await visibleScimUsers(trx, orgId).where({ id: userId }).forUpdate().first(SCIM_USER_COLUMNS)) as ScimUserRow | undefined;
}

/** The new state; `deactivated_at` follows whether they were (de)activated by it. */
export async function updateScimUserRow(
  trx: Knex.Transaction,
  orgId: string,
  userId: string,
  fields: ScimUserFields,
  activation: "deactivated" | "reactivated" | "unchanged",
): Promise<ScimUserRow> {
  const stamp = activation === "deactivated" ? { deactivated_at: trx.fn.now() } : activation === "reactivated" ? { deactivated_at: null } : {};
  const [row] = await trx("users")
    .where({ id: userId, org_id: orgId })
    .update({ ...writable(fields), ...statedLanguage(trx, fields), ...stamp })
    .returning(SCIM_USER_COLUMNS);
  return row as ScimUserRow;
}

/** Takes the person out of every group; returns the groups they were in (what those gave them is the caller's to undo). */
export async function leaveAllScimGroups(
  trx: Knex.Transaction,
  orgId: string,
  userId: string,
): Promise<Array<Pick<ScimGroupRow, "id" | "org_id" | "display_name" | "mapping">>> {
  const groups = await trx("scim_group_members as m")
    .join("scim_groups as g", "g.id", "m.group_id")
    .where({ "m.user_id": userId, "g.org_id": orgId })
    .select("g.id", "g.org_id", "g.display_name", "g.mapping");
  await trx("scim_group_members").where({ user_id: userId, org_id: orgId }).delete();
  return groups;
}

/** SCIM DELETE: deactivated (keeping when, if they already were) and hidden from SCIM. */
export async function markScimDeleted(trx: Knex.Transaction, orgId: string, userId: string, wasActive: boolean): Promise<void> {
  await trx("users")
    .where({ id: userId, org_id: orgId })
    .update({ is_active: false, deactivated_at: wasActive ? trx.fn.now() : trx.raw("deactivated_at"), scim_deleted_at: trx.fn.now() });
}
