/**
 * Operational records: LLM spend, the admin assistant's confirm-before-write actions (one row
 * per action plus one per target, so a bulk job can resume and report partial failure), and an
 * append-only audit trail of what changed tenant data and on whose behalf.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("llm_usage_log", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    // Nullable: some calls (ingestion, health checks) belong to no user or no organisation.
    t.uuid("org_id").references("id").inTable("organizations").onDelete("SET NULL").index();
    t.uuid("user_id").references("id").inTable("users").onDelete("SET NULL");
    t.text("use_case").notNullable();
    t.text("model").notNullable();
    t.integer("prompt_tokens").notNullable().defaultTo(0);
    t.integer("completion_tokens").notNullable().defaultTo(0);
    t.decimal("cost_usd", 12, 6).notNullable().defaultTo(0);
    t.integer("duration_ms");
    t.boolean("streamed").notNullable().defaultTo(false);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["org_id", "created_at"]);
  });

  await knex.schema.createTable("admin_actions", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.uuid("session_id").references("id").inTable("chat_sessions").onDelete("SET NULL");
    t.uuid("turn_id");
    t.text("tool").notNullable();
    t.jsonb("args").notNullable().defaultTo("{}");
    // What the admin was shown and confirmed; kept verbatim for the audit trail.
    t.text("preview");
    t.text("status").notNullable().defaultTo("pending").checkIn(["pending", "confirmed", "running", "completed", "failed", "cancelled", "expired"]);
    t.jsonb("estimate");
    t.integer("total");
    t.integer("done").notNullable().defaultTo(0);
    t.integer("failed").notNullable().defaultTo(0);
    t.jsonb("summary");
    // An unconfirmed preview goes stale: the data it described may have changed.
    t.timestamp("expires_at", { useTz: true });
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["user_id", "status"]);
    t.index(["status", "expires_at"]);
  });

  await knex.schema.createTable("admin_action_items", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("action_id").notNullable().references("id").inTable("admin_actions").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.jsonb("target").notNullable();
    t.text("status").notNullable().defaultTo("pending").checkIn(["pending", "done", "failed"]);
    t.text("error");
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["action_id", "position"]);
  });

  await knex.schema.createTable("audit_log", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("actor_id").references("id").inTable("users").onDelete("SET NULL");
    t.text("action").notNullable();
    t.text("target_type");
    t.text("target_id");
    t.jsonb("details");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["org_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("audit_log");
  await knex.schema.dropTableIfExists("admin_action_items");
  await knex.schema.dropTableIfExists("admin_actions");
  await knex.schema.dropTableIfExists("llm_usage_log");
}
