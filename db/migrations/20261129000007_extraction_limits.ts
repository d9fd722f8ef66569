/**
 * A stable code beside a FAILED document's readable reason (EXTRACTION_TIMEOUT,
 * EXTRACTION_TOO_LARGE, …), so clients can tell "split the file" from "try again" without
 * parsing the message. Cleared whenever the document is indexed again.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("documents", (t) => {
    t.text("error_code");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("documents", (t) => {
    t.dropColumn("error_code");
  });
}
