/**
 * SCIM 2.0 provisioning (RFC 7643/7644): the company's identity system creates, updates and
 * removes people and groups at `/scim/v2`.
 *
 * - `scim_tokens`: the bearer token an identity system presents; one live token per organisation
 *   (rotating replaces the row), stored as a SHA-256 hash with a short hint to recognise it by.
 *   The token alone names the organisation.
 * - `scim_groups`: the identity system's groups; `mapping` says what membership means here: the
 *   group's name becomes its members' department (`department`), its members are admins
 *   (`admin`), or nothing (null). Chosen by the organisation's admin, never by the identity system.
 * - `scim_group_members`: who is in which group.
 * - `users.given_name` / `users.family_name`: SCIM's name parts, kept so a PATCH of one part (Entra
 *   sends `name.givenName` alone) rebuilds `users.name` from both.
 * - `users.scim_deleted_at`: a SCIM DELETE deactivates the person and hides them from SCIM; their
 *   chats stay (erasure is a separate, explicit act). Provisioning the same address again revives
 *   the same person.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("scim_tokens", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().unique().references("id").inTable("organizations").onDelete("CASCADE");
    // SHA-256 of the token, hex; the token itself is shown once and never stored.
    t.text("token_hash").notNullable().unique();
    t.text("hint").notNullable();
    t.uuid("created_by").references("id").inTable("users").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("last_used_at", { useTz: true });
  });

  await knex.schema.createTable("scim_groups", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.text("display_name").notNullable();
    t.text("external_id");
    t.text("mapping").checkIn(["department", "admin"], "scim_groups_mapping");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["org_id", "display_name"]);
  });
  await knex.raw("CREATE UNIQUE INDEX scim_groups_org_external_id ON scim_groups (org_id, external_id) WHERE external_id IS NOT NULL");

  await knex.schema.createTable("scim_group_members", (t) => {
    t.uuid("group_id").notNullable().references("id").inTable("scim_groups").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE").index();
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(["group_id", "user_id"]);
  });

  // Every tenant table has an index that starts with org_id (test/db/migrations.test.ts); refresh_tokens came without one.
  await knex.raw("CREATE INDEX IF NOT EXISTS refresh_tokens_org_id ON refresh_tokens (org_id)");

  await knex.schema.alterTable("users", (t) => {
    t.text("given_name");
    t.text("family_name");
    t.timestamp("scim_deleted_at", { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS refresh_tokens_org_id");
  await knex.schema.alterTable("users", (t) => t.dropColumns("scim_deleted_at", "given_name", "family_name"));
  await knex.schema.dropTableIfExists("scim_group_members");
  await knex.schema.dropTableIfExists("scim_groups");
  await knex.schema.dropTableIfExists("scim_tokens");
}
