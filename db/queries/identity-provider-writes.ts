/**
 * An organisation's identity provider as written, inside the transaction of
 * commands/organisation-identity-provider.ts (which checks the rules: the secret follows its
 * issuer, no domain another organisation verified). Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import {
  findIdentityProviderOfOrg,
  IDENTITY_PROVIDER_COLUMNS,
  parseIdentityProviderRow,
  type IdentityProviderRow,
  type IdentityProviderSettings,
} from "./identity";
import { revokeRefreshTokensBegunBy } from "./refresh-tokens";

/**
 * The organisation's provider read under a lock on its organisation's row: a change that checked
 * the stored secret against it cannot be overtaken by another change committing meanwhile.
 */
export async function lockIdentityProviderOfOrg(trx: Knex.Transaction, orgId: string): Promise<IdentityProviderRow | undefined> {
  await trx("organizations").where({ id: orgId }).forUpdate().first("id");
  return findIdentityProviderOfOrg(trx, orgId);
}

/** Stores the organisation's provider as given (domains already lower-cased and unique). Turning it off ends the browser sessions it began. */
export async function upsertIdentityProvider(trx: Knex.Transaction, orgId: string, settings: IdentityProviderSettings): Promise<IdentityProviderRow> {
  const values = {
    ...settings,
    claim_mapping: JSON.stringify(settings.claim_mapping),
    saml_config: settings.saml_config === null ? null : JSON.stringify(settings.saml_config),
  };
  const [row] = await trx("identity_providers")
    .insert({ org_id: orgId, ...values })
    .onConflict("org_id")
    .merge({ ...values, updated_at: trx.fn.now() })
    .returning(IDENTITY_PROVIDER_COLUMNS);
  if (!settings.enabled) await revokeRefreshTokensBegunBy(trx, row.id as string);
  return parseIdentityProviderRow(row)!;
}

/** Removes the provider and ends the browser sessions it began (its links go with it by cascade). */
export async function deleteIdentityProvider(trx: Knex.Transaction, providerId: string): Promise<void> {
  // Before the delete: the refresh rows' provider_id is set to null by it.
  await revokeRefreshTokensBegunBy(trx, providerId);
  await trx("identity_providers").where({ id: providerId }).delete();
}
