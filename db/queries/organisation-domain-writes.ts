/**
 * Domain claims as written, inside the transaction of commands/organisation-domains.ts, which
 * takes the claims' lock, checks who may claim what and records the audit event. Nothing here
 * opens a transaction.
 */
import type { Knex } from "knex";
import { DOMAIN_COLUMNS, findOrganisationDomain, type OrganisationDomainRow, type VerificationMethod } from "./organisation-domains";

/** A pending claim; an existing row (pending or verified) is returned as it is. */
export async function insertPendingDomain(trx: Knex.Transaction, orgId: string, domain: string, token: string): Promise<OrganisationDomainRow> {
  await trx("organisation_domains").insert({ org_id: orgId, domain, token }).onConflict(["org_id", "domain"]).ignore();
  return (await findOrganisationDomain(trx, orgId, domain))!;
}

export async function markDomainVerified(
  trx: Knex.Transaction,
  orgId: string,
  domain: string,
  proof: { method: VerificationMethod; by: string | null },
): Promise<OrganisationDomainRow> {
  const [row] = await trx("organisation_domains")
    .where({ org_id: orgId, domain })
    .update({ status: "verified", method: proof.method, verified_by: proof.by, verified_at: trx.fn.now() })
    .returning(DOMAIN_COLUMNS);
  return row as OrganisationDomainRow;
}

export async function deleteOrganisationDomain(trx: Knex.Transaction, orgId: string, domain: string): Promise<OrganisationDomainRow | undefined> {
  const [row] = await trx("organisation_domains").where({ org_id: orgId, domain }).delete().returning(DOMAIN_COLUMNS);
  return row as OrganisationDomainRow | undefined;
}
