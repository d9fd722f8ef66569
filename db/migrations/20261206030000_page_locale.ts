/**
 * The language a person's pages are drawn in, apart from `users.locale` (the tutor's fallback,
 * which defaults to Spanish and so says nothing about the pages): null until someone states it.
 * The person's own choice in the page sets it with `page_locale_chosen_at`; their identity
 * provider's `locale` claim and SCIM's `preferredLanguage` fill it only while they have not chosen.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (table) => {
    table.text("page_locale").nullable();
    table.timestamp("page_locale_chosen_at", { useTz: true }).nullable();
  });
  await knex.raw("ALTER TABLE users ADD CONSTRAINT users_page_locale_iso_639_1 CHECK (page_locale ~ '^[a-z]{2}$')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE users DROP CONSTRAINT IF EXISTS users_page_locale_iso_639_1");
  await knex.schema.alterTable("users", (table) => {
    table.dropColumn("page_locale_chosen_at");
    table.dropColumn("page_locale");
  });
}
