/**
 * An organisation's identity providers as written, inside the transaction of
 * commands/organisation-identity-provider.ts (which checks the rules: the secret follows its
 * issuer, no domain another organisation verified, one enabled provider per domain within the
 * organisation). Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import {
  IDENTITY_PROVIDER_COLUMNS,
  listIdentityProvidersOfOrg,
  parseIdentityProviderRow,
  type IdentityProviderRow,
  type IdentityProviderSettings,
} from "./identity";
import { revokeRefreshTokensBegunBy } from "./refresh-tokens";

/**
 * The organisation's providers read under a lock on its organisation's row: a change that checked
 * the stored secret or the other providers' domains against them cannot be overtaken by another
 * change of the same organisation committing meanwhile.
 */
export async function lockIdentityProvidersOfOrg(trx: Knex.Transaction, orgId: string): Promise<IdentityProviderRow[]> {
  await trx("organizations").where({ id: orgId }).forUpdate().first("id");
  return listIdentityProvidersOfOrg(trx, orgId);
}

const columnsOf = (settings: IdentityProviderSettings) => ({
  ...settings,
  claim_mapping: JSON.stringify(settings.claim_mapping),
  saml_config: settings.saml_config === null ? null : JSON.stringify(settings.saml_config),
});

/** A new provider of the organisation (domains already lower-cased and unique). */
export async function insertIdentityProvider(trx: Knex.Transaction, orgId: string, settings: IdentityProviderSettings): Promise<IdentityProviderRow> {
  const [row] = await trx("identity_providers")
    .insert({ org_id: orgId, ...columnsOf(settings) })
    .returning(IDENTITY_PROVIDER_COLUMNS);
  return parseIdentityProviderRow(row)!;
}

/** Stores a provider's settings as given. Turning it off ends the browser sessions it began. */
export async function updateIdentityProvider(trx: Knex.Transaction, providerId: string, settings: IdentityProviderSettings): Promise<IdentityProviderRow> {
  const [row] = await trx("identity_providers")
    .where({ id: providerId })
    .update({ ...columnsOf(settings), updated_at: trx.fn.now() })
    .returning(IDENTITY_PROVIDER_COLUMNS);
  if (!settings.enabled) await revokeRefreshTokensBegunBy(trx, providerId);
  return parseIdentityProviderRow(row)!;
}

/** Removes the provider and ends the browser sessions it began (its links go with it by cascade). */
export async function deleteIdentityProvider(trx: Knex.Transaction, providerId: string): Promise<void> {
  // Before the delete: the refresh rows' provider_id is set to null by it.
  await revokeRefreshTokensBegunBy(trx, providerId);
  await trx("identity_providers").where({ id: providerId }).delete();
}
