/**
 * The rules every identity provider change is checked against, under the organisation's lock
 * (commands/organisation-identity-provider.ts), and how a change is audited:
 *
 * - a stored client secret follows the issuer and client it was given for
 *   (`422 CLIENT_SECRET_REQUIRED`): re-pointing the issuer would otherwise send it to whoever
 *   answers there;
 * - a domain another organisation verified could never sign people in here (`409 DOMAIN_CLAIMED`);
 * - within the organisation, an email domain is listed by one enabled provider at most
 *   (`409 DOMAIN_HAS_PROVIDER`), so the sign-in page and the callback agree on the one way in for
 *   an address. Checked for every listed domain, verified or not, so verifying one later cannot
 *   give it two providers;
 * - an organisation has at most MAX_PROVIDERS_PER_ORG providers (`409 IDENTITY_PROVIDER_LIMIT`):
 *   the API keeps every enabled provider in memory for its token check.
 */
import type { Config } from "../lib/config";
import { Refusal } from "../lib/refusal";
import { SecretBox } from "../lib/secret-box";
import { recordAudit, type AuditActor, type AuditEventName } from "../db/queries/audit-log";
import type { IdentityProviderRow } from "../db/queries/identity";
import { domainsVerifiedElsewhere, lockDomainClaims } from "../db/queries/organisation-domains";
import type { validIdentityProviderChange } from "./identity-provider-change";
import type { Transaction } from "./transaction";

export const MAX_PROVIDERS_PER_ORG = 20;

/** Who changes it: an admin or the operator through the API, or the operator's CLI (no person). */
export interface IdentityProviderActor {
  via: "api" | "cli";
  userId: string | null;
}

export type ValidChange = ReturnType<typeof validIdentityProviderChange>;

export function secretBox(config: { auth: Pick<Config["auth"], "SECRETS_KEY"> }): SecretBox {
  if (!config.auth.SECRETS_KEY)
    throw new Refusal(
      "unavailable",
      "SECRETS_KEY_MISSING",
      "SECRETS_KEY is not set, so the client secret cannot be stored encrypted. Set SECRETS_KEY (at least 32 characters, the same value the server and workers use; npm start generates one).",
    );
  return new SecretBox(config.auth.SECRETS_KEY);
}

/** A stored secret belongs to the issuer and client it was given for: moving either needs it again (or none). */
export function refuseSecretCarriedOver(change: ValidChange, stored: IdentityProviderRow | undefined): void {
  if (change.protocol !== "oidc" || !stored?.client_secret_encrypted || change.client_secret !== undefined) return;
  if (change.issuer === stored.issuer && change.client_id === stored.client_id) return;
  throw new Refusal(
    "unprocessable",
    "CLIENT_SECRET_REQUIRED",
    "The issuer or client id changed: give the client secret again (client_secret, or --client-secret), or clear it (null) for a public client. The stored one is only sent to the issuer it was given for.",
  );
}

/** A domain another organisation verified could never sign people in here; read under the claims' lock. */
export async function refuseDomainsClaimedElsewhere(trx: Transaction, orgId: string, domains: string[]): Promise<void> {
  await lockDomainClaims(trx);
  const taken = await domainsVerifiedElsewhere(trx, orgId, domains);
  if (taken.length === 0) return;
  throw new Refusal("conflict", "DOMAIN_CLAIMED", `${taken.join(", ")} is verified by another organisation; a domain signs people in to one organisation only`);
}

/** An enabled provider may not list a domain another enabled provider of the organisation lists. */
export function refuseDomainsOfAnotherProvider(others: readonly IdentityProviderRow[], domains: readonly string[]): void {
  for (const other of others) {
    if (!other.enabled) continue;
    const shared = domains.filter((domain) => other.allowed_domains.includes(domain));
    if (shared.length === 0) continue;
    throw new Refusal(
      "conflict",
      "DOMAIN_HAS_PROVIDER",
      `${shared.join(", ")} already signs in through "${other.display_name}"; an email domain signs in through one enabled provider of the organisation. Take it off that provider first, or save this one disabled.`,
      { provider_id: other.id, domains: shared },
    );
  }
}

export function refuseProviderLimit(count: number): void {
  if (count < MAX_PROVIDERS_PER_ORG) return;
  throw new Refusal(
    "conflict",
    "IDENTITY_PROVIDER_LIMIT",
    `The organisation already has ${MAX_PROVIDERS_PER_ORG} identity providers, the most it may have; remove one first.`,
    { limit: MAX_PROVIDERS_PER_ORG },
  );
}

/** The settings as the API shows them: everything but the sealed secret (only said to be set) and our sealed SP key. */
function auditView(row: IdentityProviderRow | undefined): Record<string, unknown> | null {
  if (!row) return null;
  const { client_secret_encrypted, sp_private_key_encrypted: _key, created_at: _created, updated_at: _updated, ...rest } = row;
  return { ...rest, client_secret_set: client_secret_encrypted !== null };
}

export async function recordProviderChange(
  trx: Transaction,
  name: AuditEventName,
  actor: IdentityProviderActor,
  before: IdentityProviderRow | undefined,
  after: IdentityProviderRow | undefined,
): Promise<void> {
  const row = (after ?? before)!;
  const who: AuditActor = actor.userId ? { type: "person", id: actor.userId } : { type: "operator" };
  await recordAudit(trx, {
    name,
    orgId: row.org_id,
    actor: who,
    target: { type: "identity_provider", id: row.id },
    before: auditView(before),
    after: auditView(after),
    details: { via: actor.via },
  });
}
