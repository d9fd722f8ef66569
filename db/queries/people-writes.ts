/**
 * An admin's direct changes to the organisation's people (the console's people page, not the
 * assistant's confirmed actions): adding a person, changing name, department, role or whether
 * they are active. The rules about who may be changed, the transaction and its audit event live
 * in commands/manage-people.ts; this module gives it the locked rows it decides on.
 */
import type { Knex } from "knex";
import type { Role } from "./users";

/** The transaction a change to people runs in (the command's). */
type PeopleTransaction = Knex.Transaction;

export interface NewPerson {
  orgId: string;
  email: string;
  name: string;
  role: Role;
  department: string | null;
  jobTitle: string | null;
  /** ISO 639-1. */
  locale: string;
}

const UNIQUE_VIOLATION = "23505";
const EMAIL_CONSTRAINT = "users_email_unique";

/**
 * Inserts the person as arrived through the API; `taken` when the address already belongs to
 * someone, in this organisation or another (emails are unique across the platform; which
 * organisation has it is not the caller's business).
 */
export async function insertApiPerson(trx: PeopleTransaction, person: NewPerson): Promise<{ id: string } | "taken"> {
  try {
    // A savepoint, so a refused insert leaves the caller's transaction usable.
    return await trx.transaction(async (savepoint) => {
      const [row] = await savepoint("users")
        .insert({
          org_id: person.orgId,
          email: person.email,
          name: person.name,
          role: person.role,
          department: person.department,
          job_title: person.jobTitle,
          locale: person.locale,
          provisioned_via: "api",
        })
        .returning("id");
      return { id: String(row.id) };
    });
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === EMAIL_CONSTRAINT) return "taken";
    throw error;
  }
}

export interface PersonState {
  id: string;
  name: string;
  role: Role;
  department: string | null;
  job_title: string | null;
  is_active: boolean;
}

/**
 * Locks the org's active admins (in id order, so two changes lock them alike and cannot
 * deadlock), then the person. Two admins demoting each other at once: the second waits for the
 * first, then counts the admins as they are after it, so the organisation always keeps one.
 */
export async function lockPersonAndAdmins(
  trx: PeopleTransaction,
  orgId: string,
  userId: string,
): Promise<{ person: PersonState | undefined; activeAdminIds: string[] }> {
  const admins = await trx("users").where({ org_id: orgId, role: "admin", is_active: true }).orderBy("id").forUpdate().select("id");
  const person = await trx("users")
    .where({ org_id: orgId, id: userId })
    .forUpdate()
    .first<PersonState | undefined>("id", "name", "role", "department", "job_title", "is_active");
  return { person, activeAdminIds: admins.map((row: { id: string }) => String(row.id)) };
}

export type PersonChanges = Partial<Pick<PersonState, "name" | "role" | "department" | "job_title">>;

export async function updatePersonFields(trx: PeopleTransaction, orgId: string, userId: string, changes: PersonChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await trx("users").where({ org_id: orgId, id: userId }).update(changes);
}

/** Back in: the account signs in again (its old refresh tokens stay revoked). */
export async function reactivatePerson(trx: PeopleTransaction, orgId: string, userId: string): Promise<void> {
  await trx("users").where({ org_id: orgId, id: userId }).update({ is_active: true, deactivated_at: null });
}
