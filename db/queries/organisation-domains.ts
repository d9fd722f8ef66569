/**
 * The email domains an organisation has claimed, and whether it proved them. A domain counts for
 * an organisation — finds its provider on the public sign-in page, creates people at their first
 * sign-in, keeps other organisations from adding its people — only once verified: by a DNS TXT
 * record or by the operator's approval. One organisation at most has a domain verified (a partial
 * unique index); several may have it pending, and a pending domain claims nothing.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";

export type DomainStatus = "pending" | "verified";
export type VerificationMethod = "dns" | "operator";

export interface OrganisationDomainRow {
  id: string;
  org_id: string;
  domain: string;
  status: DomainStatus;
  method: VerificationMethod | null;
  token: string;
  verified_at: Date | null;
  verified_by: string | null;
  created_at: Date;
}

type Conn = Db | Knex.Transaction;

export const DOMAIN_COLUMNS = ["id", "org_id", "domain", "status", "method", "token", "verified_at", "verified_by", "created_at"];

/** The part after the last `@`, lower-cased; undefined for a string that is not an address. */
export function domainOfEmail(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  return at > 0 && at < email.length - 1 ? email.slice(at + 1).toLowerCase() : undefined;
}

export async function listOrganisationDomains(db: Conn, orgId: string): Promise<OrganisationDomainRow[]> {
  return db("organisation_domains").select(DOMAIN_COLUMNS).where({ org_id: orgId }).orderBy("domain");
}

export async function findOrganisationDomain(db: Conn, orgId: string, domain: string): Promise<OrganisationDomainRow | undefined> {
  return db("organisation_domains").select(DOMAIN_COLUMNS).where({ org_id: orgId, domain }).first();
}

export async function findOrganisationDomainById(db: Conn, orgId: string, id: string): Promise<OrganisationDomainRow | undefined> {
  return db("organisation_domains").select(DOMAIN_COLUMNS).where({ org_id: orgId, id }).first();
}

/**
 * Serialises every claim on domains (adding, verifying, approving, saving a provider): the checks
 * "verified elsewhere" and "people elsewhere" and the write that follows them see one another.
 */
export async function lockDomainClaims(trx: Conn): Promise<void> {
  await trx.raw("SELECT pg_advisory_xact_lock(hashtext('organisation-domains'))");
}

/** The organisation that has verified this domain, if any. */
export async function verifiedOwnerOf(db: Conn, domain: string): Promise<string | undefined> {
  const row = await db("organisation_domains").where({ domain, status: "verified" }).first("org_id");
  return row ? String(row.org_id) : undefined;
}

/** Which of these domains another organisation has verified. */
export async function domainsVerifiedElsewhere(db: Conn, orgId: string, domains: readonly string[]): Promise<string[]> {
  if (domains.length === 0) return [];
  const rows = await db("organisation_domains").whereIn("domain", domains).where({ status: "verified" }).whereNot({ org_id: orgId }).select("domain");
  return rows.map((row: { domain: string }) => row.domain);
}

export async function isDomainVerifiedFor(db: Conn, orgId: string, domain: string): Promise<boolean> {
  return Boolean(await db("organisation_domains").where({ org_id: orgId, domain, status: "verified" }).first("id"));
}

/**
 * Whether people of another organisation already have addresses on this domain. A scan of the
 * users table (no index serves a suffix), run only when a domain is claimed, which is rare.
 */
export async function domainHasPeopleElsewhere(db: Conn, orgId: string, domain: string): Promise<boolean> {
  return Boolean(await db("users").whereNot({ org_id: orgId }).whereRaw("split_part(email, '@', 2) = ?", [domain]).first("id"));
}

/** Whether this organisation has people with addresses on the domain. */
export async function domainHasPeopleIn(db: Conn, orgId: string, domain: string): Promise<boolean> {
  return Boolean(await db("users").where({ org_id: orgId }).whereRaw("split_part(email, '@', 2) = ?", [domain]).first("id"));
}

/**
 * The one rule both the People API and SCIM apply before adding an address to an organisation:
 * it is kept by another organisation when someone there already has it, or when that
 * organisation has verified its domain. Callers answer both reasons alike, so the answer does not
 * tell a tenant which of the two it was (review F15).
 */
export async function emailKeptByAnotherOrganisation(db: Conn, orgId: string, email: string): Promise<boolean> {
  const address = email.toLowerCase();
  if (await db("users").where({ email: address }).whereNot({ org_id: orgId }).first("id")) return true;
  const domain = domainOfEmail(address);
  if (!domain) return false;
  const owner = await verifiedOwnerOf(db, domain);
  return owner !== undefined && owner !== orgId;
}
