/**
 * Ingestion state. Uploaded bytes live in Postgres (`document_files`), so they are durable
 * before the upload is acknowledged and every worker can read them without a shared disk.
 * Chunks are prepared in `document_chunk_drafts` and switched into `document_chunks` in one
 * transaction, so search never sees half a document. `ingest_generation` makes a reindex
 * supersede any stage jobs still in flight for the previous run.
 */
import type { Knex } from "knex";
import { getConfig } from "../../lib/config";

export async function up(knex: Knex): Promise<void> {
  const dimensions = getConfig().embedding.EMBEDDING_DIMENSIONS;
  await knex.schema.alterTable("documents", (t) => {
    t.integer("ingest_generation").notNullable().defaultTo(0);
    t.timestamp("processing_started_at", { useTz: true });
  });
  await knex.schema.createTable("document_files", (t) => {
    t.uuid("document_id").primary().references("id").inTable("documents").onDelete("CASCADE");
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.binary("bytes").notNullable();
    // Extracted sections, handed from the extract stage to the chunk stage.
    t.jsonb("extracted");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable("document_chunk_drafts", (t) => {
    t.uuid("document_id").notNullable().references("id").inTable("documents").onDelete("CASCADE");
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.integer("generation").notNullable();
    t.integer("position").notNullable();
    t.text("content").notNullable();
    t.jsonb("metadata").notNullable().defaultTo("{}");
    t.integer("token_count");
    t.specificType("embedding", `vector(${dimensions})`);
    t.primary(["document_id", "generation", "position"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("document_chunk_drafts");
  await knex.schema.dropTableIfExists("document_files");
  await knex.schema.alterTable("documents", (t) => {
    t.dropColumn("processing_started_at");
    t.dropColumn("ingest_generation");
  });
}
