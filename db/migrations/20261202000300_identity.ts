/**
 * Sign-in with a company's identity provider (OpenID Connect).
 *
 * - `identity_providers`: one per organisation: issuer, client id, the client secret encrypted
 *   with SECRETS_KEY (lib/secret-box.ts; never returned by the API), allowed email domains, how
 *   claims map to our fields, whether a first sign-in may create the employee (just in time).
 *   Several organisations may share one issuer (Google, a multi-tenant Entra app): `iss` alone
 *   never names an organisation, the stored link does.
 * - `identity_links`: which person an (issuer, subject) pair is: the only way a provider's token
 *   finds someone, so an `org` claim is never trusted. Unique across the platform.
 * - `refresh_tokens`: the browser's refresh (an HttpOnly cookie), stored hashed, rotated on use
 *   within a family: a refresh used twice revokes its whole family (a stolen copy is spent).
 * - `users.provisioned_via`: how a person arrived (seed, scim, jit, api, cli), shown in the console;
 *   `users.external_id`: the identity system's own id for them (SCIM `externalId`).
 */
import type { Knex } from "knex";

const PROVISIONED_VIA = ["seed", "scim", "jit", "api", "cli"] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.text("provisioned_via")
      .notNullable()
      .defaultTo("seed")
      .checkIn([...PROVISIONED_VIA], "users_provisioned_via");
    t.text("external_id");
  });
  await knex.raw("CREATE UNIQUE INDEX users_org_external_id ON users (org_id, external_id) WHERE external_id IS NOT NULL");

  await knex.schema.createTable("identity_providers", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().unique().references("id").inTable("organizations").onDelete("CASCADE");
    t.text("display_name").notNullable();
    t.text("issuer").notNullable().index();
    t.text("client_id").notNullable();
    // AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` in base64url; null for a public client.
    t.text("client_secret_encrypted");
    // The `aud` the provider's access tokens carry for our API; null = the client id.
    t.text("api_audience");
    t.specificType("allowed_domains", "text[]").notNullable().defaultTo("{}");
    // { email, name, department, groups, admin_groups: [] } — claim names; see lib/identity/claims.ts.
    t.jsonb("claim_mapping").notNullable().defaultTo("{}");
    t.boolean("jit_enabled").notNullable().defaultTo(false);
    t.boolean("enabled").notNullable().defaultTo(true);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable("identity_links", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE").index();
    t.uuid("provider_id").notNullable().references("id").inTable("identity_providers").onDelete("CASCADE");
    t.text("issuer").notNullable();
    t.text("subject").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("last_sign_in_at", { useTz: true });
    t.unique(["issuer", "subject"]);
  });

  await knex.schema.createTable("refresh_tokens", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE").index();
    t.uuid("family_id").notNullable().index();
    // SHA-256 of the token, hex; the token itself is never stored.
    t.text("token_hash").notNullable().unique();
    // The provider the family began with (for RP-initiated logout); null for other sign-ins.
    t.uuid("provider_id").references("id").inTable("identity_providers").onDelete("SET NULL");
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("used_at", { useTz: true });
    t.timestamp("revoked_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("refresh_tokens");
  await knex.schema.dropTableIfExists("identity_links");
  await knex.schema.dropTableIfExists("identity_providers");
  await knex.raw("DROP INDEX IF EXISTS users_org_external_id");
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("external_id");
    t.dropColumn("provisioned_via");
  });
}
