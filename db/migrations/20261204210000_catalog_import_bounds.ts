/**
 * Bulk imports bounded (issue 44; security review F1, F3, F12):
 * - `receiving`: the import's slot, taken with the organisation's other pending imports counted
 *   under a lock before its body is read, so parallel posts cannot all pass the "3 pending" check
 *   (a reservation left by a server that died mid-read stops counting after a while and is pruned);
 * - `problems_omitted`: refused lines past the first ones kept, counted per code;
 * - `error_code`: why a failed import stopped, as a code (its `error` is a fixed sentence, never
 *   an exception's text);
 * - an index on `finished_at` for the sweep that prunes old finished imports;
 * - the file's parts stored uncompressed (STORAGE EXTERNAL): compressing and decompressing up to
 *   32 MiB per import cost Postgres CPU that other organisations' turns wait for, to save disk the
 *   file holds only until it is split.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE catalog_imports DROP CONSTRAINT IF EXISTS catalog_imports_status_check");
  await knex.raw(
    "ALTER TABLE catalog_imports ADD CONSTRAINT catalog_imports_status_check CHECK (status IN ('receiving', 'received', 'applying', 'completed', 'failed'))",
  );
  await knex.schema.alterTable("catalog_imports", (t) => {
    t.jsonb("problems_omitted").notNullable().defaultTo("{}");
    t.text("error_code");
    t.index(["finished_at"]);
  });
  await knex.raw("ALTER TABLE catalog_import_parts ALTER COLUMN bytes SET STORAGE EXTERNAL");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE catalog_import_parts ALTER COLUMN bytes SET STORAGE EXTENDED");
  await knex("catalog_imports").where({ status: "receiving" }).delete();
  await knex.schema.alterTable("catalog_imports", (t) => {
    t.dropIndex(["finished_at"]);
    t.dropColumn("error_code");
    t.dropColumn("problems_omitted");
  });
  await knex.raw("ALTER TABLE catalog_imports DROP CONSTRAINT IF EXISTS catalog_imports_status_check");
  await knex.raw("ALTER TABLE catalog_imports ADD CONSTRAINT catalog_imports_status_check CHECK (status IN ('received', 'applying', 'completed', 'failed'))");
}
