/**
 * Organisations as written, inside the transaction of commands/organisations.ts (which checks
 * the slug, audits the change in the operator's organisation and maps a taken slug or email to
 * its refusal). Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import { ORGANISATION_COLUMNS, parseOrganisationRow, type OrganisationRow } from "./organizations";

/** Why a new organisation or admin could not be stored: its slug or the admin's email is taken. */
export type CreateConflict = "slug" | "email";

/** Which unique index a violation names (the caller's input, not a fault); undefined for any other error. */
export function createConflictOf(error: unknown): CreateConflict | undefined {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code !== "23505") return undefined;
  return constraint?.startsWith("users") ? "email" : "slug";
}

export async function insertOrganisation(trx: Knex.Transaction, input: { name: string; slug: string }): Promise<OrganisationRow> {
  const [org] = await trx("organizations").insert({ name: input.name, slug: input.slug }).returning(ORGANISATION_COLUMNS);
  return parseOrganisationRow(org)!;
}

/** The organisation's first admin (email already lower-cased). */
export async function insertFirstAdmin(
  trx: Knex.Transaction,
  orgId: string,
  admin: { email: string; name: string; provisionedVia: "cli" | "api" },
): Promise<string> {
  const [row] = await trx("users")
    .insert({ org_id: orgId, email: admin.email, name: admin.name, role: "admin", provisioned_via: admin.provisionedVia, locale: "en" })
    .returning("id");
  return String(row.id);
}

export interface OrganisationChange {
  name?: string;
  /** null: back to ORG_STORAGE_QUOTA_BYTES. */
  storage_quota_bytes?: number | null;
}

/** The organisation locked for a change; undefined when it is being deleted (or gone). */
export async function lockLiveOrganisation(trx: Knex.Transaction, orgId: string): Promise<OrganisationRow | undefined> {
  return parseOrganisationRow(await trx("organizations").select(ORGANISATION_COLUMNS).where({ id: orgId }).whereNull("deleting_since").forUpdate().first());
}

export async function updateOrganisationRow(trx: Knex.Transaction, orgId: string, change: OrganisationChange): Promise<OrganisationRow> {
  const [row] = await trx("organizations").where({ id: orgId }).update(change).returning(ORGANISATION_COLUMNS);
  return parseOrganisationRow(row)!;
}
