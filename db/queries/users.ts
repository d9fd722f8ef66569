/** Users and organisations, always looked up within an org except at sign-in. */
import type { Db } from "../knex";

export type Role = "admin" | "employee";

export interface UserRow {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  department: string | null;
  locale: "es" | "en";
  is_active: boolean;
}

/** Sign-in lookup: emails are unique across the platform and stored lower-case. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db<UserRow>("users").select("id", "org_id", "email", "name", "role", "department", "locale", "is_active").where({ email: email.trim().toLowerCase() }).first();
}

export async function findUser(db: Db, orgId: string, userId: string): Promise<UserRow | undefined> {
  return db<UserRow>("users").select("id", "org_id", "email", "name", "role", "department", "locale", "is_active").where({ id: userId, org_id: orgId }).first();
}

export async function findOrganisationName(db: Db, orgId: string): Promise<string | undefined> {
  const row = await db("organizations").select("name").where({ id: orgId }).first();
  return row?.name as string | undefined;
}
