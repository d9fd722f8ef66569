/**
 * An identity provider speaks OpenID Connect or SAML 2.0 (`protocol`). An OpenID provider needs
 * its issuer and client id; a SAML one has neither and keeps what its IdP metadata said in
 * `saml_config` (entity id, SSO/SLO URLs, signing certificates, the metadata URL, whether
 * IdP-initiated sign-in is allowed), with our service provider's own key pair for this provider:
 * the private key sealed with SECRETS_KEY (lib/secret-box.ts), the certificate public.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("identity_providers", (t) => {
    t.text("protocol").notNullable().defaultTo("oidc");
    t.jsonb("saml_config");
    t.text("sp_private_key_encrypted");
    t.text("sp_certificate");
  });
  await knex.raw("ALTER TABLE identity_providers ALTER COLUMN issuer DROP NOT NULL, ALTER COLUMN client_id DROP NOT NULL");
  await knex.raw(`ALTER TABLE identity_providers
    ADD CONSTRAINT identity_providers_protocol CHECK (protocol IN ('oidc', 'saml')),
    ADD CONSTRAINT identity_providers_protocol_fields CHECK (
      (protocol = 'oidc' AND issuer IS NOT NULL AND client_id IS NOT NULL)
      OR (protocol = 'saml' AND saml_config IS NOT NULL AND jsonb_typeof(saml_config) = 'object'
          AND sp_private_key_encrypted IS NOT NULL AND sp_certificate IS NOT NULL)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex("identity_providers").where({ protocol: "saml" }).delete();
  await knex.raw("ALTER TABLE identity_providers DROP CONSTRAINT identity_providers_protocol_fields, DROP CONSTRAINT identity_providers_protocol");
  await knex.raw("ALTER TABLE identity_providers ALTER COLUMN issuer SET NOT NULL, ALTER COLUMN client_id SET NOT NULL");
  await knex.schema.alterTable("identity_providers", (t) => {
    t.dropColumn("protocol");
    t.dropColumn("saml_config");
    t.dropColumn("sp_private_key_encrypted");
    t.dropColumn("sp_certificate");
  });
}
