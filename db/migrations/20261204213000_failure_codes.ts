/**
 * A code beside the sentence a failed erasure, export or organisation deletion stores
 * (`error_code`): the API and the console tell failures apart by it, and the sentence is a fixed
 * one of ours (workers/stored-failure.ts), never an error's own text. Earlier failures' raw text
 * is replaced by the generic sentence, since it may hold SQL with bound values.
 */
import type { Knex } from "knex";

const TABLES = ["person_erasures", "person_exports", "org_deletions"] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.text("error_code");
    });
    await knex(table)
      .whereNotNull("error")
      .update({ error: "It failed before failures were stored with a code; the details are in the server log.", error_code: "INTERNAL_ERROR" });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn("error_code");
    });
  }
}
