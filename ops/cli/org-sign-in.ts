/**
 * The sign-in set-up commands of `npm run org`: `idp set|show|remove` (commands/organisation-identity-provider.ts,
 * validated as the API validates a change) and `domain approve|list` (commands/organisation-domains.ts).
 */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { approveDomain } from "../../commands/organisation-domains";
import { removeOrganisationIdentityProvider, saveOrganisationIdentityProvider } from "../../commands/organisation-identity-provider";
import { organisationNamed } from "../../commands/organisations";
import { findIdentityProviderOfOrg } from "../../db/queries/identity";
import { listOrganisationDomains } from "../../db/queries/organisation-domains";
import { list, required, type Session, UsageError, type Values } from "./org-args";
import { metadataFetcher } from "../../lib/saml/metadata-fetch";
import { samlSpUrls } from "../../lib/saml/sp-urls";
import { identityProviderChange, samlProviderChange, shownProvider } from "./org-identity-provider";

function claimMappingFlags(values: Values) {
  return {
    ...(values["groups-claim"] ? { groups: values["groups-claim"] } : {}),
    ...(values["admin-groups"] ? { admin_groups: list(values["admin-groups"]) } : {}),
    ...(values["trust-email"] ? { trust_email: true } : {}),
    ...(values["email-attribute"] ? { email: values["email-attribute"] } : {}),
  };
}

/** `idp set --protocol saml`: the same command and validation as the API's SAML change. */
async function setSamlProvider(values: Values, session: Session & { log: Logger }): Promise<number> {
  const { db, config, out, operator, log } = session;
  const deps = { db, log, config, fetchMetadata: metadataFetcher(config) };
  for (const flag of ["issuer", "client-id", "client-secret", "clear-client-secret"] as const)
    if (values[flag] !== undefined) throw new UsageError(`--${flag} is for OpenID Connect, not --protocol saml`);
  if (values["metadata-url"] !== undefined && values["metadata-file"] !== undefined)
    throw new UsageError("--metadata-url and --metadata-file exclude each other");
  const org = await organisationNamed(deps, required(values, "org"));
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
    await findIdentityProviderOfOrg(db, org.id),
  );
  for (const domain of new Set(change.allowed_domains)) await approveDomain(deps, operator, org.id, domain);
  const saved = await saveOrganisationIdentityProvider(deps, { via: "cli", userId: null }, org.id, change);
  // Without PUBLIC_URL the paths, to put after the address people open.
  const sp = samlSpUrls(config.server.PUBLIC_URL ? new URL(config.server.PUBLIC_URL).origin : "", saved.id);
  out.result({ ...shownProvider(saved), sp_metadata_url: sp.metadata, acs_url: sp.acs }, [
    `${values.org}: SAML identity provider "${saved.display_name}" stored (IdP ${saved.saml_config?.entity_id})`,
    `Give the IdP our metadata: ${sp.metadata} (entity id the same URL, ACS ${sp.acs})`,
  ]);
  return 0;
}

export async function runSignInCommand(command: string, values: Values, session: Session & { log: Logger }, args: string[]): Promise<number> {
  const { db, config, out, operator, log } = session;
  const deps = { db, log, config };
  switch (command) {
    case "idp set": {
      const protocol = values.protocol ?? "oidc";
      if (protocol !== "oidc" && protocol !== "saml") throw new UsageError('--protocol must be "oidc" or "saml"');
      if (protocol === "saml") return setSamlProvider(values, session);
      const org = await organisationNamed(deps, required(values, "org"));
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
        await findIdentityProviderOfOrg(db, org.id),
      );
      // The operator types these domains, so they count as approved by the operator (verified, like
      // `domain approve`): onboarding keeps working without a TXT record (docs/single-sign-on.md).
      for (const domain of new Set(change.allowed_domains.map((d) => d.trim().toLowerCase()))) await approveDomain(deps, operator, org.id, domain);
      const saved = await saveOrganisationIdentityProvider(deps, { via: "cli", userId: null }, org.id, change);
      const provider = shownProvider(saved);
      out.result(provider, [
        `${values.org}: identity provider "${provider.display_name}" stored (${provider.issuer}, client secret ${provider.has_client_secret ? "set" : "none"})`,
      ]);
      return 0;
    }
    case "idp show": {
      const row = await findIdentityProviderOfOrg(db, (await organisationNamed(deps, required(values, "org"))).id);
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
      const removed = await removeOrganisationIdentityProvider(deps, { via: "cli", userId: null }, org.id);
      out.result({ removed }, [removed ? `${values.org}: identity provider removed` : `${values.org} had no identity provider`]);
      return 0;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}
