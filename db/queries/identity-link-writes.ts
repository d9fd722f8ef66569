/**
 * Links from a provider's (issuer, subject) to a person, and the person a sign-in creates or
 * updates from the provider's claims, as written inside the transaction of
 * commands/sign-in-people.ts. Nothing here opens a transaction or decides who may sign in.
 */
import { statedPageLocale } from "./page-locale-writes";
import type { Db } from "../knex";
import { findIdentityLink, type ClaimedProfile, type IdentityLinkRow, type ProvisionedUser } from "./identity";

/** Links a person once; a second link of the same (issuer, subject) keeps the first. */
export async function linkIdentity(db: Db, link: Omit<IdentityLinkRow, "id">): Promise<IdentityLinkRow> {
  await db("identity_links").insert(link).onConflict(["issuer", "subject"]).ignore();
  return (await findIdentityLink(db, link.issuer, link.subject))!;
}

/** A link made with a new person: a second of the same (issuer, subject) fails on its unique index. */
export async function insertIdentityLink(db: Db, link: Omit<IdentityLinkRow, "id">): Promise<void> {
  await db("identity_links").insert(link);
}

export async function touchIdentityLink(db: Db, linkId: string): Promise<void> {
  await db("identity_links").where({ id: linkId }).update({ last_sign_in_at: db.fn.now() });
}

export async function deleteIdentityLinksOfUser(db: Db, orgId: string, userId: string): Promise<number> {
  return db("identity_links").where({ org_id: orgId, user_id: userId }).delete();
}

/** The employee a first sign-in stands for; fails on the unique email when someone has it. */
export async function insertJitPerson(db: Db, orgId: string, email: string, profile: ClaimedProfile): Promise<ProvisionedUser> {
  const [user] = await db("users")
    .insert({
      org_id: orgId,
      email: email.toLowerCase(),
      name: profile.name ?? email.split("@")[0],
      department: profile.department ?? null,
      role: profile.role ?? "employee",
      ...(profile.locale ? { locale: profile.locale, page_locale: profile.locale } : {}),
      provisioned_via: "jit",
    })
    .returning(["id", "org_id", "email", "name", "role", "is_active"]);
  return user as ProvisionedUser;
}

/**
 * The person a concurrent first sign-in created. A person whose erasure was asked for is nobody's
 * winner: no identity is linked to their row.
 */
export async function findJitWinner(db: Db, orgId: string, email: string): Promise<ProvisionedUser | undefined> {
  return db("users")
    .select("id", "org_id", "email", "name", "role", "is_active")
    .where({ org_id: orgId, email: email.toLowerCase() })
    .whereNull("erasure_requested_at")
    .first();
}

/** Applies the provider's fields to the person; returns their role before (undefined: no such person). */
export async function updatePersonFromClaims(db: Db, orgId: string, userId: string, changes: ClaimedProfile): Promise<string | undefined> {
  const before = await db("users").select("role").where({ id: userId, org_id: orgId }).first();
  const { locale, ...rest } = changes;
  await db("users")
    .where({ id: userId, org_id: orgId })
    .update({ ...rest, ...(locale ? { locale, page_locale: statedPageLocale(db, locale) } : {}) });
  return before?.role;
}
