/** Users and organisations, always looked up within an org except at sign-in. */
import type { Db } from "../knex";

export type Role = "admin" | "employee";

/**
 * Accounts of an organisation being deleted (`organizations.deleting_since`) count as gone: they
 * cannot sign in, their tokens are refused and their sockets are cut at the next re-check.
 */
const organisationNotDeleting = (db: Db) => db("organizations").select("id").whereNull("deleting_since");

export interface UserRow {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  department: string | null;
  /** ISO 639-1. */
  locale: string;
  is_active: boolean;
}

/** A user with the language of their pages: stated by them or their identity system, else null. */
export interface UserWithPageLocale extends UserRow {
  page_locale: string | null;
}

/** Sign-in lookup: emails are unique across the platform and stored lower-case. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db<UserRow>("users")
    .select("id", "org_id", "email", "name", "role", "department", "locale", "is_active")
    .where({ email: email.trim().toLowerCase() })
    .whereIn("org_id", organisationNotDeleting(db))
    .first();
}

export async function findUser(db: Db, orgId: string, userId: string): Promise<UserWithPageLocale | undefined> {
  return db<UserWithPageLocale>("users")
    .select("id", "org_id", "email", "name", "role", "department", "locale", "is_active", "page_locale")
    .where({ id: userId, org_id: orgId })
    .whereIn("org_id", organisationNotDeleting(db))
    .first();
}

/**
 * Which of these (org, user) pairs are still active accounts, with their current role: the socket
 * gateway re-checks every connected socket with one query per node instead of one per socket.
 */
export async function findActiveUsers(db: Db, members: Array<{ orgId: string; userId: string }>): Promise<Array<{ id: string; role: Role }>> {
  const found: Array<{ id: string; role: Role }> = [];
  // Postgres caps bind parameters at 65,535 per statement; two per pair.
  for (let start = 0; start < members.length; start += 10_000) {
    const pairs = members.slice(start, start + 10_000).map((m) => [m.orgId, m.userId]);
    found.push(
      ...(await db("users").select("id", "role").whereIn(["org_id", "id"], pairs).andWhere({ is_active: true }).whereIn("org_id", organisationNotDeleting(db))),
    );
  }
  return found;
}

/** Whether organisation `orgId` has this slug (how OPS_ORG names the operator organisation). */
export async function organisationHasSlug(db: Db, orgId: string, slug: string): Promise<boolean> {
  return Boolean(await db("organizations").where({ id: orgId, slug }).first("id"));
}

export async function findOrganisationName(db: Db, orgId: string): Promise<string | undefined> {
  const row = await db("organizations").select("name").where({ id: orgId }).first();
  return row?.name as string | undefined;
}

/**
 * Active accounts for the dev-login picker (only served while DEV_LOGIN_ENABLED, when an email
 * alone signs anyone in anyway): admins first, then by name, at most `limit`.
 */
export async function listSignInCandidates(db: Db, limit: number): Promise<Array<Pick<UserRow, "email" | "name" | "role" | "department">>> {
  return db<UserRow>("users")
    .select("email", "name", "role", "department")
    .where({ is_active: true })
    .whereIn("org_id", organisationNotDeleting(db))
    .orderBy([{ column: "role" }, { column: "name" }])
    .limit(limit);
}

/** The org's longest-standing admin: who hears about work nobody in particular started. */
export async function findFirstAdmin(db: Db, orgId: string): Promise<string | undefined> {
  return (await db("users").where({ org_id: orgId, role: "admin" }).orderBy("created_at").first("id"))?.id;
}

/** The organisation's active admins (at most 100): who sees work the organisation's integrations started. */
export async function activeAdminIds(db: Db, orgId: string): Promise<string[]> {
  const rows = await db("users").where({ org_id: orgId, role: "admin", is_active: true }).orderBy("created_at").limit(100).select("id");
  return rows.map((row: { id: string }) => row.id);
}
