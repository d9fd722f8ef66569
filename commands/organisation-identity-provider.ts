/**
 * An organisation's identity providers are stored and removed here, and only here: the admin's
 * routes, the operator's routes and the CLI (`npm run org -- idp …`) call these, so a change is
 * validated, written and audited once, the same way whoever makes it. An organisation may have
 * several providers (staff on one, contractors on another), each signing in its own email domains;
 * the rules a change must keep are in identity-provider-rules.ts.
 *
 * A provider is addressed by its id within the organisation (another organisation's id is not
 * found, as an unknown one), or as the organisation's only one: the single-provider API and
 * `idp set` without `--id` create one when there is none and change it when there is one, and are
 * refused (`409 SEVERAL_IDENTITY_PROVIDERS`) once there are several, rather than guess.
 *
 * The client secret is write-only and sealed with SECRETS_KEY (lib/secret-box.ts) before it
 * reaches the database; nothing here returns or logs it. Turning a provider off, or removing it,
 * ends the browser sessions it began. Each change is audited in the organisation's own audit log
 * (`identity_provider.created`, `.updated`, `.removed`, before/after without the secret,
 * `details.via` api or cli), in the same transaction as the change.
 */
import type { Config } from "../lib/config";
import { Refusal } from "../lib/refusal";
import { findIdentityProviderOfOrg, listIdentityProvidersOfOrg, type IdentityProviderRow, type IdentityProviderSettings } from "../db/queries/identity";
import { deleteIdentityProvider, insertIdentityProvider, lockIdentityProvidersOfOrg, updateIdentityProvider } from "../db/queries/identity-provider-writes";
import type { CommandDeps } from "./deps";
import { type IdentityProviderChange, validIdentityProviderChange } from "./identity-provider-change";
import {
  type IdentityProviderActor,
  recordProviderChange,
  refuseDomainsClaimedElsewhere,
  refuseDomainsOfAnotherProvider,
  refuseProviderLimit,
  refuseSecretCarriedOver,
  secretBox,
  type ValidChange,
} from "./identity-provider-rules";
import { type MetadataFetch, samlStoredFields } from "./saml-provider-settings";
import { withTransaction } from "./transaction";

/** Everything a provider is, as a change states it; `client_secret` undefined keeps the stored one, null removes it. */
export type { IdentityProviderChange, IdentityProviderActor };

/** What the provider is asked before it is stored; throws when it cannot be used (the routes discover it, the CLI does not). */
export type ProviderCheck = (credentials: { issuer: string; clientId: string; clientSecret: string | null }) => Promise<void>;

export type IdentityProviderDeps = Pick<CommandDeps, "db" | "log"> & {
  config: { auth: Pick<Config["auth"], "SECRETS_KEY"> };
  checkProvider?: ProviderCheck;
  /** Fetches a SAML IdP's metadata by URL through the outbound guard; without it only uploaded XML is accepted. */
  fetchMetadata?: MetadataFetch;
};

/** Which provider a change is for: a new one, one by id, or the organisation's only one (created when there is none). */
export type ProviderTarget = { kind: "new" } | { kind: "id"; id: string } | { kind: "sole" };

const notFound = () => Refusal.notFound("Identity provider");

/** The one provider of an organisation that has at most one; several is a refusal, not a guess. */
export function soleProvider(providers: readonly IdentityProviderRow[]): IdentityProviderRow | undefined {
  if (providers.length > 1)
    throw new Refusal(
      "conflict",
      "SEVERAL_IDENTITY_PROVIDERS",
      `The organisation has ${providers.length} identity providers: address one by its id (/api/v1/admin/identity-providers/{id}, or --id in the CLI).`,
      { provider_ids: providers.map((provider) => provider.id) },
    );
  return providers[0];
}

/** The provider the target names among the organisation's; a missing id is 404. */
function targeted(target: ProviderTarget, providers: readonly IdentityProviderRow[]): IdentityProviderRow | undefined {
  if (target.kind === "new") return undefined;
  if (target.kind === "sole") return soleProvider(providers);
  const found = providers.find((provider) => provider.id === target.id);
  if (!found) throw notFound();
  return found;
}

async function storedProvider(deps: IdentityProviderDeps, orgId: string, target: ProviderTarget): Promise<IdentityProviderRow | undefined> {
  if (target.kind === "new") return undefined;
  if (target.kind === "sole") return soleProvider(await listIdentityProvidersOfOrg(deps.db, orgId));
  const found = await findIdentityProviderOfOrg(deps.db, orgId, target.id);
  if (!found) throw notFound();
  return found;
}

type OidcChange = Extract<ValidChange, { protocol: "oidc" }>;

/** The secret discovery is tried with: the new one, the stored one, or none. */
function effectiveSecret(deps: IdentityProviderDeps, change: OidcChange, stored: IdentityProviderRow | undefined): string | null {
  if (change.client_secret !== undefined) return change.client_secret;
  return stored?.client_secret_encrypted ? secretBox(deps.config).open(stored.client_secret_encrypted) : null;
}

/**
 * The row's settings for this change, made outside the transaction: an OpenID provider is
 * discovered (checkProvider) and its new secret sealed; a SAML provider's metadata is read and
 * its SP key pair made on first save, then kept (samlStoredFields). Switching protocol clears the
 * other protocol's columns.
 */
async function settingsToStore(
  deps: IdentityProviderDeps,
  change: ValidChange,
  domains: string[],
  stored: IdentityProviderRow | undefined,
): Promise<{ settings: IdentityProviderSettings; secretChanged: boolean }> {
  const { display_name, protocol, claim_mapping, jit_enabled, enabled } = change;
  const common = { display_name, protocol, claim_mapping, jit_enabled, enabled, allowed_domains: domains };
  if (change.protocol === "saml") {
    const saml = await samlStoredFields(secretBox(deps.config), deps.fetchMetadata, change, stored);
    return { settings: { ...common, issuer: null, client_id: null, api_audience: null, client_secret_encrypted: null, ...saml }, secretChanged: false };
  }
  const secret = change.client_secret;
  const sealed = typeof secret === "string" ? secretBox(deps.config).seal(secret) : secret;
  await deps.checkProvider?.({ issuer: change.issuer, clientId: change.client_id, clientSecret: effectiveSecret(deps, change, stored) });
  const settings: IdentityProviderSettings = {
    ...common,
    issuer: change.issuer,
    client_id: change.client_id,
    api_audience: change.api_audience,
    saml_config: null,
    sp_private_key_encrypted: null,
    sp_certificate: null,
    ...(sealed !== undefined ? { client_secret_encrypted: sealed } : {}),
  };
  return { settings, secretChanged: secret !== undefined };
}

/** Creates or changes the provider the target names, after asking the provider (checkProvider) outside the transaction. */
export async function saveIdentityProvider(
  deps: IdentityProviderDeps,
  actor: IdentityProviderActor,
  orgId: string,
  target: ProviderTarget,
  request: IdentityProviderChange,
): Promise<IdentityProviderRow> {
  const change = validIdentityProviderChange(request);
  const stored = await storedProvider(deps, orgId, target);
  refuseSecretCarriedOver(change, stored);
  const domains = [...new Set(change.allowed_domains.map((domain) => domain.toLowerCase()))];
  const { settings, secretChanged } = await settingsToStore(deps, change, domains, stored);
  const saved = await withTransaction(deps, async (trx) => {
    const providers = await lockIdentityProvidersOfOrg(trx, orgId);
    // Read again under the lock: a provider removed, added or re-pointed while discovery ran counts as it is now.
    const before = targeted(target, providers);
    refuseSecretCarriedOver(change, before);
    if (!before) refuseProviderLimit(providers.length);
    await refuseDomainsClaimedElsewhere(trx, orgId, domains);
    if (settings.enabled)
      refuseDomainsOfAnotherProvider(
        providers.filter((provider) => provider.id !== before?.id),
        domains,
      );
    const row = before ? await updateIdentityProvider(trx, before.id, settings) : await insertIdentityProvider(trx, orgId, settings);
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
      secretChanged,
    },
    "identity provider stored",
  );
  return saved;
}

/** The single-provider form: creates the organisation's provider when it has none, changes it when it has one. */
export function saveOrganisationIdentityProvider(
  deps: IdentityProviderDeps,
  actor: IdentityProviderActor,
  orgId: string,
  request: IdentityProviderChange,
): Promise<IdentityProviderRow> {
  return saveIdentityProvider(deps, actor, orgId, { kind: "sole" }, request);
}

/** Removes the provider the target names (its links and the browser sessions it began go with it); false when there was none. */
export async function removeIdentityProvider(
  deps: Pick<IdentityProviderDeps, "db" | "log">,
  actor: IdentityProviderActor,
  orgId: string,
  target: Exclude<ProviderTarget, { kind: "new" }>,
): Promise<boolean> {
  const removed = await withTransaction(deps, async (trx) => {
    const providers = await lockIdentityProvidersOfOrg(trx, orgId);
    const before = target.kind === "sole" ? soleProvider(providers) : providers.find((provider) => provider.id === target.id);
    if (!before) return undefined;
    await deleteIdentityProvider(trx, before.id);
    await recordProviderChange(trx, "identity_provider.removed", actor, before, undefined);
    return before;
  });
  if (removed) deps.log.info({ orgId, providerId: removed.id, via: actor.via }, "identity provider removed");
  return removed !== undefined;
}
