/**
 * People as SCIM sees them: every person of the organisation that a SCIM DELETE has not removed.
 * Writes come from the organisation's identity system through commands/scim-users.ts (the
 * server maps SCIM attributes to these fields); scim-user-writes.ts is their table access.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { type ScimWhere, applyScimWhere } from "./scim-filter";

export interface ScimUserFields {
  email: string;
  name: string;
  given_name: string | null;
  family_name: string | null;
  external_id: string | null;
  is_active: boolean;
  /** Undefined keeps what is stored (a group mapping may own it); null clears it. */
  job_title?: string | null;
  department?: string | null;
  /** ISO 639-1. */
  locale?: string;
}

export interface ScimUserRow {
  id: string;
  org_id: string;
  email: string;
  name: string;
  given_name: string | null;
  family_name: string | null;
  external_id: string | null;
  is_active: boolean;
  job_title: string | null;
  department: string | null;
  /** ISO 639-1. */
  locale: string;
  role: "admin" | "employee";
  created_at: Date;
}

export const SCIM_USER_COLUMNS = [
  "id",
  "org_id",
  "email",
  "name",
  "given_name",
  "family_name",
  "external_id",
  "is_active",
  "job_title",
  "department",
  "locale",
  "role",
  "created_at",
];

/** The SCIM attributes a filter may name, and their columns. */
export const USER_FILTER_COLUMNS = {
  id: { column: "users.id::text" },
  userName: { column: "email", caseInsensitive: true },
  "emails.value": { column: "email", caseInsensitive: true },
  externalId: { column: "external_id" },
  active: { column: "is_active", boolean: true },
  displayName: { column: "name", caseInsensitive: true },
} as const;

/** SCIM sees neither a deleted person nor one whose erasure was asked for (404: gone, however Entra's cycle re-asserts them). */
export const visibleScimUsers = (db: Db | Knex.Transaction, orgId: string) =>
  db("users").where({ org_id: orgId }).whereNull("scim_deleted_at").whereNull("erasure_requested_at");

export async function findScimUser(db: Db, orgId: string, id: string): Promise<ScimUserRow | undefined> {
  return visibleScimUsers(db, orgId).where({ id }).first(SCIM_USER_COLUMNS);
}

export async function listScimUsers(
  db: Db,
  orgId: string,
  where: ScimWhere,
  page: { offset: number; limit: number },
): Promise<{ rows: ScimUserRow[]; total: number }> {
  const base = visibleScimUsers(db, orgId);
  applyScimWhere(base, where, USER_FILTER_COLUMNS);
  const [counted] = await base.clone().count<{ count: string }[]>("* as count");
  const rows = page.limit === 0 ? [] : await base.select(SCIM_USER_COLUMNS).orderBy("created_at").orderBy("id").offset(page.offset).limit(page.limit);
  return { rows, total: Number(counted?.count ?? 0) };
}
