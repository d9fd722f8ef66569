/**
 * An organisation's identity provider is stored and removed here, and only here: the admin's
 * route, the operator's route and the CLI (`npm run org -- idp …`) call these, so a change is
 * validated, written and audited once, the same way whoever makes it.
 *
 * The client secret is write-only and sealed with SECRETS_KEY (lib/secret-box.ts) before it
 * reaches the database; nothing here returns or logs it. It was given for one issuer and one
 * client: a change of `issuer` or `client_id` must give it again or clear it
 * (`422 CLIENT_SECRET_REQUIRED`), or re-pointing the issuer would send the stored secret to
 * whoever answers there.
 *
 * A provider's `allowed_domains` may list domains the organisation has not verified
 * (organisation-domains.ts): they do nothing until verified. One another organisation has
 * verified is refused (`409 DOMAIN_CLAIMED`, checked under the domain claims' lock), since it
 * could never be this organisation's. Turning a provider off ends the browser sessions it began.
 *
 * Each change is audited in the organisation's own audit log (`identity_provider.created`,
 * `.updated`, `.removed`, before/after without the secret, `details.via` api or cli), in the same
 * transaction as the change.
 */
import type { Config } from "../lib/config";
import { Refusal } from "../lib/refusal";
import { SecretBox } from "../lib/secret-box";
import { recordAudit, type AuditActor, type AuditEventName } from "../db/queries/audit-log";
import { findIdentityProviderOfOrg, type IdentityProviderRow, type IdentityProviderSettings } from "../db/queries/identity";
import { deleteIdentityProvider, lockIdentityProviderOfOrg, upsertIdentityProvider } from "../db/queries/identity-provider-writes";
import { domainsVerifiedElsewhere, lockDomainClaims } from "../db/queries/organisation-domains";
import type { CommandDeps } from "./deps";
import { type IdentityProviderChange, validIdentityProviderChange } from "./identity-provider-change";
import { type MetadataFetch, samlStoredFields } from "./saml-provider-settings";
import { type Transaction, withTransaction } from "./transaction";

/** Everything a provider is, as a change states it; `client_secret` undefined keeps the stored one, null removes it. */
export type { IdentityProviderChange };

/** Who changes it: an admin or the operator through the API, or the operator's CLI (no person). */
export interface IdentityProviderActor {
  via: "api" | "cli";
  userId: string | null;
}

/** What the provider is asked before it is stored; throws when it cannot be used (the routes discover it, the CLI does not). */
export type ProviderCheck = (credentials: { issuer: string; clientId: string; clientSecret: string | null }) => Promise<void>;

type ValidChange = ReturnType<typeof validIdentityProviderChange>;

export type IdentityProviderDeps = Pick<CommandDeps, "db" | "log"> & {
  config: { auth: Pick<Config["auth"], "SECRETS_KEY"> };
  checkProvider?: ProviderCheck;
  /** Fetches a SAML IdP's metadata by URL through the outbound guard; without it only uploaded XML is accepted. */
  fetchMetadata?: MetadataFetch;
};

function secretBox(deps: IdentityProviderDeps): SecretBox {
  if (!deps.config.auth.SECRETS_KEY)
    throw new Refusal(
      "unavailable",
      "SECRETS_KEY_MISSING",
      "SECRETS_KEY is not set, so the client secret cannot be stored encrypted. Set SECRETS_KEY (at least 32 characters, the same value the server and workers use; npm start generates one).",
    );
  return new SecretBox(deps.config.auth.SECRETS_KEY);
}

type OidcChange = Extract<ValidChange, { protocol: "oidc" }>;

/** A stored secret belongs to the issuer and client it was given for: moving either needs it again (or none). */
function refuseSecretCarriedOver(change: ValidChange, stored: IdentityProviderRow | undefined): void {
  if (change.protocol !== "oidc" || !stored?.client_secret_encrypted || change.client_secret !== undefined) return;
  if (change.issuer === stored.issuer && change.client_id === stored.client_id) return;
  throw new Refusal(
    "unprocessable",
    "CLIENT_SECRET_REQUIRED",
    "The issuer or client id changed: give the client secret again (client_secret, or --client-secret), or clear it (null) for a public client. The stored one is only sent to the issuer it was given for.",
  );
}

/** The secret discovery is tried with: the new one, the stored one, or none. */
function effectiveSecret(deps: IdentityProviderDeps, change: OidcChange, stored: IdentityProviderRow | undefined): string | null {
  if (change.client_secret !== undefined) return change.client_secret;
  return stored?.client_secret_encrypted ? secretBox(deps).open(stored.client_secret_encrypted) : null;
}

/** The settings as the API shows them: everything but the sealed secret, which is only said to be set. */
function auditView(row: IdentityProviderRow | undefined): Record<string, unknown> | null {
  if (!row) return null;
  const { client_secret_encrypted, sp_private_key_encrypted: _key, created_at: _created, updated_at: _updated, ...rest } = row;
  return { ...rest, client_secret_set: client_secret_encrypted !== null };
}

async function recordProviderChange(
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

/** A domain another organisation verified could never sign people in here; read under the claims' lock. */
async function refuseDomainsClaimedElsewhere(trx: Transaction, orgId: string, domains: string[]): Promise<void> {
  await lockDomainClaims(trx);
  const taken = await domainsVerifiedElsewhere(trx, orgId, domains);
  if (taken.length === 0) return;
  throw new Refusal("conflict", "DOMAIN_CLAIMED", `${taken.join(", ")} is verified by another organisation; a domain signs people in to one organisation only`);
}

export async function saveOrganisationIdentityProvider(
  deps: IdentityProviderDeps,
  actor: IdentityProviderActor,
  orgId: string,
  request: IdentityProviderChange,
): Promise<IdentityProviderRow> {
  const change = validIdentityProviderChange(request);
  const stored = await findIdentityProviderOfOrg(deps.db, orgId);
  refuseSecretCarriedOver(change, stored);
  const domains = [...new Set(change.allowed_domains.map((domain) => domain.toLowerCase()))];
  const common = {
    display_name: change.display_name,
    protocol: change.protocol,
    claim_mapping: change.claim_mapping,
    jit_enabled: change.jit_enabled,
    enabled: change.enabled,
    allowed_domains: domains,
  };
  let settings: IdentityProviderSettings;
  let secret: string | null | undefined;
  if (change.protocol === "oidc") {
    secret = change.client_secret;
    const sealed = typeof secret === "string" ? secretBox(deps).seal(secret) : secret;
    await deps.checkProvider?.({ issuer: change.issuer, clientId: change.client_id, clientSecret: effectiveSecret(deps, change, stored) });
    settings = {
      ...common,
      issuer: change.issuer,
      client_id: change.client_id,
      api_audience: change.api_audience,
      saml_config: null,
      sp_private_key_encrypted: null,
      sp_certificate: null,
      ...(sealed !== undefined ? { client_secret_encrypted: sealed } : {}),
    };
  } else {
    const saml = await samlStoredFields(secretBox(deps), deps.fetchMetadata, change, stored);
    settings = { ...common, issuer: null, client_id: null, api_audience: null, client_secret_encrypted: null, ...saml };
  }
  const saved = await withTransaction(deps, async (trx) => {
    const before = await lockIdentityProviderOfOrg(trx, orgId);
    // Checked again under the lock: a secret stored while discovery ran must not follow a new issuer.
    refuseSecretCarriedOver(change, before);
    await refuseDomainsClaimedElsewhere(trx, orgId, domains);
    const row = await upsertIdentityProvider(trx, orgId, settings);
    await recordProviderChange(trx, before ? "identity_provider.updated" : "identity_provider.created", actor, before, row);
    return row;
  });
  deps.log.info(
    {
      orgId,
      providerId: saved.id,
      protocol: saved.protocol,
      issuer: saved.issuer ?? saved.saml_config?.entity_id,
      via: actor.via,
      secretChanged: secret !== undefined,
    },
    "identity provider stored",
  );
  return saved;
}

/** Removes it (its links and the browser sessions it began go with it); false when there was none. */
export async function removeOrganisationIdentityProvider(
  deps: Pick<IdentityProviderDeps, "db" | "log">,
  actor: IdentityProviderActor,
  orgId: string,
): Promise<boolean> {
  const removed = await withTransaction(deps, async (trx) => {
    const before = await lockIdentityProviderOfOrg(trx, orgId);
    if (!before) return false;
    await deleteIdentityProvider(trx, before.id);
    await recordProviderChange(trx, "identity_provider.removed", actor, before, undefined);
    return true;
  });
  if (removed) deps.log.info({ orgId, via: actor.via }, "identity provider removed");
  return removed;
}
