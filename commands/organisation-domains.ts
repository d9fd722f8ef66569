/**
 * An organisation claims an email domain and proves it (issue 44, point 2; review F2). Adding a
 * domain records a pending claim and the TXT record to publish; verifying looks that record up
 * now; the operator may approve a domain instead (the CLI's `domain approve`, `idp set
 * --domains`, or the operator API). Only a verified domain does anything: see
 * db/queries/organisation-domains.ts. What may not be claimed at all:
 *
 * - a public mail domain (gmail.com, outlook.com, …: `422 PUBLIC_EMAIL_DOMAIN`);
 * - a domain another organisation has verified (`409 DOMAIN_CLAIMED`);
 * - by an admin whose organisation has nobody on the domain, one on which another organisation
 *   already has people (`409 DOMAIN_IN_USE`): a tenant cannot start claiming a company's domain
 *   from under its people. An organisation with people there may always claim it (so a tenant
 *   that added one address of another company's domain cannot block that company), and the
 *   operator, who checks ownership out of band, may approve any.
 *
 * Each change runs in one transaction with its audit row, under the lock every domain claim takes.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../lib/config";
import { checkChallenge } from "../lib/domain-txt";
import { isPublicEmailDomain } from "../lib/public-email-domains";
import { Refusal } from "../lib/refusal";
import { recordAudit, type AuditEventName } from "../db/queries/audit-log";
import { organisationIdOfSlug } from "../db/queries/organizations";
import { deleteOrganisationDomain, insertPendingDomain, markDomainVerified } from "../db/queries/organisation-domain-writes";
import {
  domainHasPeopleElsewhere,
  domainHasPeopleIn,
  findOrganisationDomain,
  lockDomainClaims,
  verifiedOwnerOf,
  type OrganisationDomainRow,
} from "../db/queries/organisation-domains";
import { refusingDuplicates } from "../db/queries/unique-violation";
import type { CommandDeps } from "./deps";
import { organisationNamed, recordOperatorChange, type Operator } from "./organisations";
import { type Transaction, withTransaction } from "./transaction";

export type DomainDeps = Pick<CommandDeps, "db" | "log"> & { config: Pick<Config, "outbound" | "server"> };

interface DomainRequest {
  orgId: string;
  actorId: string | null;
  domain: string;
}

const claimedRefusal = (domain: string) =>
  new Refusal("conflict", "DOMAIN_CLAIMED", `${domain} is verified by another organisation; a domain signs people in to one organisation only.`);

/** What a domain change looks like in the audit log (never the token: it is public in DNS anyway, but says nothing useful). */
async function recordDomainChange(
  trx: Transaction,
  name: AuditEventName,
  entry: { orgId: string; actorId: string | null; row: OrganisationDomainRow; details?: Record<string, unknown> },
): Promise<void> {
  await recordAudit(trx, {
    name,
    orgId: entry.orgId,
    actor: entry.actorId ? { type: "person", id: entry.actorId } : { type: "operator" },
    target: { type: "organisation_domain", id: entry.row.id },
    after: { domain: entry.row.domain, status: entry.row.status, method: entry.row.method },
    ...(entry.details ? { details: entry.details } : {}),
  });
}

function refuseUnclaimable(domain: string): void {
  if (isPublicEmailDomain(domain))
    throw new Refusal(
      "unprocessable",
      "PUBLIC_EMAIL_DOMAIN",
      `${domain} is a public mail service, not a company's domain; it cannot belong to an organisation.`,
    );
}

export async function addDomain(deps: DomainDeps, request: DomainRequest): Promise<OrganisationDomainRow> {
  const { orgId, domain } = request;
  refuseUnclaimable(domain);
  const row = await withTransaction(deps, async (trx) => {
    await lockDomainClaims(trx);
    const existing = await findOrganisationDomain(trx, orgId, domain);
    if (existing) return existing;
    const owner = await verifiedOwnerOf(trx, domain);
    if (owner !== undefined && owner !== orgId) throw claimedRefusal(domain);
    if ((await domainHasPeopleElsewhere(trx, orgId, domain)) && !(await domainHasPeopleIn(trx, orgId, domain)))
      throw new Refusal(
        "conflict",
        "DOMAIN_IN_USE",
        `People of another organisation already have addresses on ${domain}; ask the platform operator to approve it if it is yours.`,
      );
    const added = await insertPendingDomain(trx, orgId, domain, randomBytes(16).toString("hex"));
    await recordDomainChange(trx, "organisation_domain.added", { orgId, actorId: request.actorId, row: added });
    return added;
  });
  deps.log.child({ component: "domains" }).info({ orgId, actorId: request.actorId, domain }, "domain claimed (pending)");
  return row;
}

/** Looks the TXT record up now; verified when it holds this claim's token. Nothing changes when it does not. */
export async function verifyDomain(deps: DomainDeps, request: DomainRequest): Promise<OrganisationDomainRow> {
  const { orgId, domain } = request;
  const claim = await findOrganisationDomain(deps.db, orgId, domain);
  if (!claim) throw Refusal.notFound("Domain");
  if (claim.status === "verified") return claim;
  // Outside any transaction: a slow resolver must not hold the claims' lock.
  const outcome = await checkChallenge(domain, claim.token, deps.config.outbound.DNS_RESOLVERS ?? []);
  const log = deps.log.child({ component: "domains" });
  if (outcome.kind === "failed") {
    log.warn({ orgId, domain, reason: outcome.reason }, "domain verification: DNS lookup failed");
    throw new Refusal("unavailable", "DNS_LOOKUP_FAILED", `The DNS lookup for ${domain} failed (${outcome.reason}); nothing changed. Try again shortly.`);
  }
  if (outcome.kind === "missing")
    throw new Refusal(
      "conflict",
      "DOMAIN_TXT_MISSING",
      `No TXT record _skillnet-challenge.${domain} with this domain's verification value was found; it stays pending. DNS changes can take a while to show.`,
    );
  const { row: verified } = await withTransaction(deps, async (trx) => {
    // Removed (or removed and claimed again, with a new token) while DNS was asked: the proof was for a claim that is gone.
    // Read under the claims lock, so a removal committing meanwhile is seen rather than undone.
    await lockDomainClaims(trx);
    const current = await findOrganisationDomain(trx, orgId, domain);
    if (current?.token !== claim.token) throw Refusal.notFound("Domain");
    return markVerifiedOnce(trx, request, { method: "dns", by: request.actorId });
  });
  log.info({ orgId, actorId: request.actorId, domain }, "domain verified by DNS");
  return verified;
}

async function markVerifiedOnce(
  trx: Transaction,
  request: DomainRequest,
  proof: { method: "dns" | "operator"; by: string | null },
  details?: Record<string, unknown>,
): Promise<{ row: OrganisationDomainRow; changed: boolean }> {
  await lockDomainClaims(trx);
  const owner = await verifiedOwnerOf(trx, request.domain);
  if (owner !== undefined && owner !== request.orgId) throw claimedRefusal(request.domain);
  const claim = await insertPendingDomain(trx, request.orgId, request.domain, randomBytes(16).toString("hex"));
  if (claim.status === "verified") return { row: claim, changed: false };
  const verified = await refusingDuplicates(
    () => claimedRefusal(request.domain),
    () => markDomainVerified(trx, request.orgId, request.domain, proof),
  );
  await recordDomainChange(trx, "organisation_domain.verified", { orgId: request.orgId, actorId: request.actorId, row: verified, details });
  return { row: verified, changed: true };
}

export async function removeDomain(deps: DomainDeps, request: DomainRequest): Promise<void> {
  await withTransaction(deps, async (trx) => {
    await lockDomainClaims(trx);
    const removed = await deleteOrganisationDomain(trx, request.orgId, request.domain);
    if (!removed) throw Refusal.notFound("Domain");
    await recordDomainChange(trx, "organisation_domain.removed", { orgId: request.orgId, actorId: request.actorId, row: removed });
  });
  deps.log.child({ component: "domains" }).info({ orgId: request.orgId, actorId: request.actorId, domain: request.domain }, "domain removed");
}

/**
 * The operator vouches for the domain: verified at once (`method: operator`), whether or not
 * another organisation has people on it. Audited in the organisation and in the operator's own;
 * a domain already verified for the organisation is left as it is.
 */
export async function approveDomain(deps: DomainDeps, operator: Operator, idOrSlug: string, domain: string): Promise<OrganisationDomainRow> {
  const org = await organisationNamed(deps, idOrSlug);
  refuseUnclaimable(domain);
  const by = operator.via === "api" ? operator.userId : null;
  const auditOrgId =
    operator.via === "api" ? operator.orgId : (deps.config.server.OPS_ORG && (await organisationIdOfSlug(deps.db, deps.config.server.OPS_ORG))) || org.id;
  const approved = await withTransaction(deps, async (trx) => {
    const { row, changed } = await markVerifiedOnce(trx, { orgId: org.id, actorId: by, domain }, { method: "operator", by }, { via: operator.via });
    // Approving again (compose's sso-setup runs `idp set` on every `up`) changes nothing and records nothing.
    if (!changed) return row;
    await recordOperatorChange(trx, operator, {
      name: "organisation_domain.approved",
      auditOrgId,
      orgId: org.id,
      slug: org.slug,
      after: { domain, status: row.status, method: row.method },
    });
    return row;
  });
  deps.log.child({ component: "domains" }).info({ orgId: org.id, domain, via: operator.via }, "domain approved by the operator");
  return approved;
}
