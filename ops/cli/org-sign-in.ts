/**
 * The sign-in set-up commands of `npm run org`: `idp list|add|set|show|remove`
 * (commands/organisation-identity-provider.ts, validated as the API validates a change) and
 * `domain approve|list` (commands/organisation-domains.ts). An organisation may have several
 * providers: `--id` names one; without it `set`, `show` and `remove` mean the organisation's only
 * provider (`set` creates it when there is none) and are refused when it has several.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { approveDomain } from "../../commands/organisation-domains";
import { type ProviderTarget, removeIdentityProvider, saveIdentityProvider, soleProvider } from "../../commands/organisation-identity-provider";
import { organisationNamed } from "../../commands/organisations";
import type { Db } from "../../db/knex";
import { findIdentityProviderOfOrg, listIdentityProvidersOfOrg, type IdentityProviderRow } from "../../db/queries/identity";
import { listOrganisationDomains } from "../../db/queries/organisation-domains";
import { Refusal } from "../../lib/refusal";
import { metadataFetcher } from "../../lib/saml/metadata-fetch";
import { samlSpUrls } from "../../lib/saml/sp-urls";
import { list, required, type Session, UsageError, type Values } from "./org-args";
import { identityProviderChange, samlProviderChange, shownProvider } from "./org-identity-provider";

function claimMappingFlags(values: Values) {
  return {
    ...(values["groups-claim"] ? { groups: values["groups-claim"] } : {}),
    ...(values["admin-groups"] ? { admin_groups: list(values["admin-groups"]) } : {}),
    ...(values["trust-email"] ? { trust_email: true } : {}),
    ...(values["email-attribute"] ? { email: values["email-attribute"] } : {}),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--id` when given, else the organisation's only provider (`add`: always a new one). */
function targetOf(command: string, values: Values): ProviderTarget {
  if (command === "idp add") return { kind: "new" };
  if (values.id === undefined) return { kind: "sole" };
  if (!UUID.test(values.id)) throw new UsageError(`--id takes a provider's id (a UUID, see idp list), got "${values.id}"`);
  return { kind: "id", id: values.id.toLowerCase() };
}

async function providerTargeted(db: Db, orgId: string, target: ProviderTarget): Promise<IdentityProviderRow | undefined> {
  if (target.kind === "new") return undefined;
  if (target.kind === "sole") return soleProvider(await listIdentityProvidersOfOrg(db, orgId));
  const found = await findIdentityProviderOfOrg(db, orgId, target.id);
  if (!found) throw Refusal.notFound("Identity provider");
  return found;
}

/** `idp set|add --protocol saml`: the same command and validation as the API's SAML change. */
async function setSamlProvider(command: string, values: Values, session: Session & { log: Logger }): Promise<number> {
  const { db, config, out, operator, log } = session;
  const deps = { db, log, config, fetchMetadata: metadataFetcher(config) };
  for (const flag of ["issuer", "client-id", "client-secret", "clear-client-secret"] as const)
    if (values[flag] !== undefined) throw new UsageError(`--${flag} is for OpenID Connect, not --protocol saml`);
  if (values["metadata-url"] !== undefined && values["metadata-file"] !== undefined)
    throw new UsageError("--metadata-url and --metadata-file exclude each other");
  const org = await organisationNamed(deps, required(values, "org"));
  const target = targetOf(command, values);
  const change = samlProviderChange(
    {
      metadataUrl: values["metadata-url"],
      metadataXml: values["metadata-file"] !== undefined ? readFileSync(values["metadata-file"], "utf8") : undefined,
      allowIdpInitiated: values["allow-idp-initiated"] ?? false,
      displayName: required(values, "display-name"),
      domains: list(values.domains),
      jit: values.jit ?? false,
      claimMapping: claimMappingFlags(values),
    },
    await providerTargeted(db, org.id, target),
  );
  for (const domain of new Set(change.allowed_domains)) await approveDomain(deps, operator, org.id, domain);
  const saved = await saveIdentityProvider(deps, { via: "cli", userId: null }, org.id, target, change);
  // Without PUBLIC_URL the paths, to put after the address people open.
  const sp = samlSpUrls(config.server.PUBLIC_URL ? new URL(config.server.PUBLIC_URL).origin : "", saved.id);
  out.result({ ...shownProvider(saved), sp_metadata_url: sp.metadata, acs_url: sp.acs }, [
    `${values.org}: SAML identity provider "${saved.display_name}" stored (IdP ${saved.saml_config?.entity_id}, id ${saved.id})`,
    `Give the IdP our metadata: ${sp.metadata} (entity id the same URL, ACS ${sp.acs})`,
  ]);
  return 0;
}

const summaryLine = (provider: IdentityProviderRow): string =>
  `${provider.id}  ${provider.display_name}  ${provider.protocol === "saml" ? `SAML ${provider.saml_config?.entity_id}` : provider.issuer}  domains: ${provider.allowed_domains.join(", ") || "none"}${provider.enabled ? "" : "  (off)"}`;

export async function runSignInCommand(command: string, values: Values, session: Session & { log: Logger }, args: string[]): Promise<number> {
  const { db, config, out, operator, log } = session;
  const deps = { db, log, config };
  switch (command) {
    case "idp add":
    case "idp set": {
      const protocol = values.protocol ?? "oidc";
      if (protocol !== "oidc" && protocol !== "saml") throw new UsageError('--protocol must be "oidc" or "saml"');
      if (protocol === "saml") return setSamlProvider(command, values, session);
      const org = await organisationNamed(deps, required(values, "org"));
      const target = targetOf(command, values);
      const secret = values["client-secret"] === "-" ? readFileSync(0, "utf8").trim() : values["client-secret"];
      if (secret !== undefined && values["clear-client-secret"]) throw new UsageError("--client-secret and --clear-client-secret exclude each other");
      if (secret !== undefined && !config.auth.SECRETS_KEY)
        throw new UsageError(
          "SECRETS_KEY is not set, so the client secret cannot be stored encrypted. Set SECRETS_KEY (at least 32 characters, the same value the server and workers use) and run this again.",
        );
      const change = identityProviderChange(
        {
          issuer: required(values, "issuer"),
          clientId: required(values, "client-id"),
          clientSecret: values["clear-client-secret"] ? null : secret,
          displayName: required(values, "display-name"),
          domains: list(values.domains),
          jit: values.jit ?? false,
          claimMapping: claimMappingFlags(values),
        },
        await providerTargeted(db, org.id, target),
      );
      // The operator types these domains, so they count as approved by the operator (verified, like
      // `domain approve`): onboarding keeps working without a TXT record (docs/single-sign-on.md).
      for (const domain of new Set(change.allowed_domains.map((d) => d.trim().toLowerCase()))) await approveDomain(deps, operator, org.id, domain);
      const saved = await saveIdentityProvider(deps, { via: "cli", userId: null }, org.id, target, change);
      const provider = shownProvider(saved);
      out.result(provider, [
        `${values.org}: identity provider "${provider.display_name}" stored (${provider.issuer}, client secret ${provider.has_client_secret ? "set" : "none"}, id ${provider.id})`,
      ]);
      return 0;
    }
    case "idp list": {
      const org = await organisationNamed(deps, required(values, "org"));
      const providers = await listIdentityProvidersOfOrg(db, org.id);
      out.table(providers.map(shownProvider), providers.length === 0 ? [`${values.org} has no identity provider`] : providers.map(summaryLine));
      return 0;
    }
    case "idp show": {
      const org = await organisationNamed(deps, required(values, "org"));
      const row = await providerTargeted(db, org.id, targetOf(command, values));
      const provider = row && shownProvider(row);
      if (!provider) {
        out.result(null, [`${values.org} has no identity provider`]);
        return 0;
      }
      out.result(
        provider,
        Object.entries(provider).map(
          ([key, value]) => `${key}: ${typeof value === "object" && value !== null && !(value instanceof Date) ? JSON.stringify(value) : String(value)}`,
        ),
      );
      return 0;
    }
    case "domain approve": {
      const [orgName = "", domain = ""] = args;
      const approved = await approveDomain(deps, operator, orgName, domain.trim().toLowerCase().replace(/\.$/, ""));
      out.result(approved, [`${orgName}: ${approved.domain} verified (approved by the operator)`]);
      return 0;
    }
    case "domain list": {
      const org = await organisationNamed(deps, args[0] ?? "");
      const domains = await listOrganisationDomains(db, org.id);
      out.result(
        domains,
        domains.length === 0 ? [`${org.slug} has claimed no domain`] : domains.map((d) => `${d.domain}: ${d.status}${d.method ? ` (${d.method})` : ""}`),
      );
      return 0;
    }
    case "idp remove": {
      const org = await organisationNamed(deps, required(values, "org"));
      const target = targetOf(command, values) as Exclude<ProviderTarget, { kind: "new" }>;
      const removed = await removeIdentityProvider(deps, { via: "cli", userId: null }, org.id, target);
      if (!removed && target.kind === "id") throw Refusal.notFound("Identity provider");
      out.result({ removed }, [removed ? `${values.org}: identity provider removed` : `${values.org} had no identity provider`]);
      return 0;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}
