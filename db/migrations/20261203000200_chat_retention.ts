/**
 * How long an organisation keeps its chats (issue 33, retention).
 *
 * - `org_retention`: one row per organisation that has set a retention (or whose chats were
 *   swept): `chat_retention_days` (null = keep forever), who set it, and what the `chat-retention`
 *   maintenance sweep did. A sweep under way has `sweep_started_at` set and adds each batch's
 *   counts to `sweep_sessions`/`sweep_messages` in the batch's own transaction, so a sweep killed
 *   between two batches resumes on the next run with exact totals; a finished one moves them to
 *   `last_sweep_*`.
 * - `chat_sessions (org_id, updated_at)`: the sweep reads an organisation's oldest sessions by
 *   last activity, a batch at a time, without scanning all of its sessions.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("org_retention", (t) => {
    t.uuid("org_id").primary().references("id").inTable("organizations").onDelete("CASCADE");
    t.integer("chat_retention_days");
    t.uuid("updated_by").references("id").inTable("users").onDelete("SET NULL");
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("sweep_started_at", { useTz: true });
    t.integer("sweep_sessions").notNullable().defaultTo(0);
    t.integer("sweep_messages").notNullable().defaultTo(0);
    t.timestamp("last_sweep_at", { useTz: true });
    t.integer("last_sweep_sessions").notNullable().defaultTo(0);
    t.integer("last_sweep_messages").notNullable().defaultTo(0);
    t.check("chat_retention_days IS NULL OR chat_retention_days BETWEEN 1 AND 3650", {}, "org_retention_days_range");
  });
  await knex.raw("CREATE INDEX IF NOT EXISTS chat_sessions_org_updated_at ON chat_sessions (org_id, updated_at)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS chat_sessions_org_updated_at");
  await knex.schema.dropTableIfExists("org_retention");
}
