/**
 * Files an employee attaches to a tutor conversation. The file and its state live with the
 * conversation (`session_id`, cascading), so deleting the conversation, the retention sweep, the
 * person's erasure and the organisation's deletion take it too. `message_id` is the question it
 * was sent with (null while it waits in the message box). Its passages are kept beside it with
 * their embeddings, searched only within the one conversation; the vector column has no fixed
 * dimension because it is never indexed (a conversation holds a few dozen passages, scanned
 * exactly), so a change of embedding model needs no migration here: passages of another
 * dimension are simply not compared by vector.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("chat_attachments", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("session_id").notNullable().references("id").inTable("chat_sessions").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.uuid("message_id").references("id").inTable("chat_messages").onDelete("SET NULL");
    t.text("filename").notNullable();
    t.text("format").notNullable();
    t.text("mime_type").notNullable();
    t.integer("size_bytes").notNullable();
    t.binary("content").notNullable();
    t.text("status").notNullable().defaultTo("processing").checkIn(["processing", "ready", "failed"]);
    t.text("error_code");
    t.text("error");
    t.integer("chunk_count").notNullable().defaultTo(0);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["session_id", "created_at"]);
    t.index(["org_id", "user_id"]);
  });

  await knex.schema.createTable("chat_attachment_chunks", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("attachment_id").notNullable().references("id").inTable("chat_attachments").onDelete("CASCADE");
    t.uuid("session_id").notNullable().references("id").inTable("chat_sessions").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.text("content").notNullable();
    // {heading, page_start, page_end}: what a citation shows.
    t.jsonb("metadata").notNullable().defaultTo("{}");
    t.specificType("embedding", "vector");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["attachment_id", "position"]);
    t.index(["session_id"]);
    // Erasure and organisation deletion find a tenant's rows by org_id.
    t.index(["org_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("chat_attachment_chunks");
  await knex.schema.dropTableIfExists("chat_attachments");
}
