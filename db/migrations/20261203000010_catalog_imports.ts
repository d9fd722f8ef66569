/**
 * Bulk catalog imports (issue 33): an integration posts an NDJSON or JSON file of catalog and
 * progress records; the `catalog-import` job applies them one by one (workers/catalog/).
 *
 * - `catalog_imports`: one per file, with where the job stands (`next_seq`, the cursor) and the
 *   counts of what it did. The cursor and the counts move in the transaction that applies their
 *   records, so a job killed mid-way resumes where it stopped and ends with the same totals.
 * - `catalog_import_parts`: the body as received, in parts of up to 1 MiB, until the job has
 *   split it into records; the request only stores it, so parsing a large file never runs on a
 *   server's event loop.
 * - `catalog_import_lines`: the records in the order they are applied (`seq`: parents before
 *   children, deletes after upserts, children first), each with its line in the file; removed
 *   when the import ends.
 * - `catalog_import_problems`: each record that was not applied, with its line, a code and why.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("catalog_imports", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("integration_key_id").references("id").inTable("integration_keys").onDelete("SET NULL");
    t.text("key_name");
    t.text("format").notNullable().checkIn(["ndjson", "json"]);
    t.text("status").notNullable().defaultTo("received").checkIn(["received", "applying", "completed", "failed"]);
    t.bigInteger("byte_size").notNullable();
    t.integer("total");
    t.integer("next_seq").notNullable().defaultTo(0);
    for (const count of ["created", "updated", "unchanged", "deleted", "failed"]) t.integer(count).notNullable().defaultTo(0);
    t.text("error");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("started_at", { useTz: true });
    t.timestamp("finished_at", { useTz: true });
    t.index(["org_id", "created_at"]);
  });
  await knex.schema.createTable("catalog_import_parts", (t) => {
    t.uuid("import_id").notNullable().references("id").inTable("catalog_imports").onDelete("CASCADE");
    t.integer("part").notNullable();
    t.binary("bytes").notNullable();
    t.primary(["import_id", "part"]);
  });
  await knex.schema.createTable("catalog_import_lines", (t) => {
    t.uuid("import_id").notNullable().references("id").inTable("catalog_imports").onDelete("CASCADE");
    t.integer("seq").notNullable();
    t.integer("line").notNullable();
    // Null for a line too long to be a record: its problem is recorded when the file is split.
    t.text("text");
    t.primary(["import_id", "seq"]);
  });
  await knex.schema.createTable("catalog_import_problems", (t) => {
    t.uuid("import_id").notNullable().references("id").inTable("catalog_imports").onDelete("CASCADE");
    t.integer("line").notNullable();
    t.text("code").notNullable();
    t.text("message").notNullable();
    t.primary(["import_id", "line"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["catalog_import_problems", "catalog_import_lines", "catalog_import_parts", "catalog_imports"]) {
    await knex.schema.dropTableIfExists(table);
  }
}
