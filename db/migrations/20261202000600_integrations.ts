/**
 * A company's own systems writing to the platform (issue 33).
 *
 * - `integration_keys`: an organisation's API keys for its integrations (an LMS sync, an HR
 *   export, a document mirror), each with scopes, a name and an optional expiry; stored as a
 *   SHA-256 hash with the last characters as a hint, shown once. They open the integration
 *   endpoints only (server/auth/integration-key.ts), never chat or the admin assistant.
 * - `external_id` on every catalog and progress table: the caller's own id for a record, unique
 *   within the organisation, so a sync can be repeated and an upsert finds what it wrote before.
 *   Records created here (the seed, the admin assistant) have none and are never touched by one.
 *   Skill levels, enrolments and review schedules are keyed by their parents (person + course,
 *   person + skill, person + exercise); they carry no id of their own.
 * - A course's language is any ISO 639-1 code (an LMS teaches in more than Spanish and English).
 */
import type { Knex } from "knex";

/** Tables whose rows an integration names by its own id. */
const EXTERNALLY_KEYED = ["skill_categories", "skills", "courses", "modules", "lessons", "exercises", "exercise_attempts", "documents"] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("integration_keys", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.text("name").notNullable();
    t.specificType("scopes", "text[]").notNullable();
    t.text("key_hash").notNullable().unique();
    t.text("hint").notNullable();
    t.uuid("created_by").references("id").inTable("users").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("expires_at", { useTz: true });
    t.timestamp("last_used_at", { useTz: true });
    t.timestamp("revoked_at", { useTz: true });
    t.check("cardinality(scopes) > 0", {}, "integration_keys_scopes_not_empty");
  });

  for (const table of EXTERNALLY_KEYED) {
    await knex.schema.alterTable(table, (t) => {
      t.text("external_id");
    });
    await knex.raw(`CREATE UNIQUE INDEX ${table}_org_external_id ON ${table} (org_id, external_id) WHERE external_id IS NOT NULL`);
  }
  await knex.raw("ALTER TABLE courses DROP CONSTRAINT IF EXISTS courses_language_check");
  await knex.raw("ALTER TABLE courses ADD CONSTRAINT courses_language_iso_639_1 CHECK (language ~ '^[a-z]{2}$')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE courses DROP CONSTRAINT IF EXISTS courses_language_iso_639_1");
  await knex.raw("ALTER TABLE courses ADD CONSTRAINT courses_language_check CHECK (language IN ('es', 'en')) NOT VALID");
  for (const table of [...EXTERNALLY_KEYED].reverse()) {
    await knex.raw(`DROP INDEX IF EXISTS ${table}_org_external_id`);
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn("external_id");
    });
  }
  await knex.schema.dropTableIfExists("integration_keys");
}
