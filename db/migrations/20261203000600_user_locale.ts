/**
 * An employee's language is any ISO 639-1 code, not only Spanish or English (issue 34, point 5):
 * `users.locale` is the tutor's fallback when a message is too short to tell its language, so it
 * must be able to say French, German, Portuguese or any other. Like the courses' language
 * (20261202000600_integrations).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE users DROP CONSTRAINT IF EXISTS users_locale_check");
  await knex.raw("ALTER TABLE users ADD CONSTRAINT users_locale_iso_639_1 CHECK (locale ~ '^[a-z]{2}$')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE users DROP CONSTRAINT IF EXISTS users_locale_iso_639_1");
  // NOT VALID: rows written in another language since stay as they are; new ones are held to es/en again.
  await knex.raw("ALTER TABLE users ADD CONSTRAINT users_locale_check CHECK (locale IN ('es', 'en')) NOT VALID");
}
