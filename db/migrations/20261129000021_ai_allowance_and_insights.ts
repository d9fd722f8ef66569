/**
 * What admins learn from the tutor, and what the operator limits (issue 23):
 *
 * - `llm_usage_log` gains `call_key` (unique: a model call is charged once, however often its job
 *   is retried or re-run) and how many of its tokens came from the month's allowance and from
 *   credits.
 * - `ai_allowances`: an organisation's own monthly allowance (null = AI_MONTHLY_TOKENS_PER_ORG,
 *   0 = unlimited) and its credit balance, which never expires and never goes below zero.
 * - `ai_usage_months`: tokens charged per organisation and calendar month (UTC), so the check
 *   before a turn reads one row instead of summing the log.
 * - `ai_credit_grants`: every credit top-up with its note and operator (also in audit_log).
 * - `chat_feedback`: one rating per assistant message, with the rung and sources it was given.
 * - `question_vectors`: tutor questions embedded for the content-gap grouping, filled by a sweep.
 *
 * Numbered 21 (not 12) to leave room for migrations other branches add at the same time.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("llm_usage_log", (t) => {
    t.text("call_key").unique();
    t.bigInteger("allowance_tokens").notNullable().defaultTo(0);
    t.bigInteger("credit_tokens").notNullable().defaultTo(0);
  });

  await knex.schema.createTable("ai_allowances", (t) => {
    t.uuid("org_id").primary().references("id").inTable("organizations").onDelete("CASCADE");
    t.bigInteger("monthly_tokens");
    t.bigInteger("credit_balance").notNullable().defaultTo(0);
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("monthly_tokens IS NULL OR monthly_tokens >= 0", {}, "ai_allowances_monthly_tokens_non_negative");
    t.check("credit_balance >= 0", {}, "ai_allowances_credit_balance_non_negative");
  });

  await knex.schema.createTable("ai_usage_months", (t) => {
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.date("month").notNullable();
    t.bigInteger("allowance_tokens").notNullable().defaultTo(0);
    t.bigInteger("credit_tokens").notNullable().defaultTo(0);
    t.primary(["org_id", "month"]);
  });

  await knex.schema.createTable("ai_credit_grants", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.bigInteger("tokens").notNullable();
    t.text("note").notNullable();
    t.uuid("granted_by").references("id").inTable("users").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable("chat_feedback", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("message_id").notNullable().unique().references("id").inTable("chat_messages").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.text("rating").notNullable().checkIn(["up", "down"]);
    t.text("comment");
    t.text("rung");
    t.jsonb("sources").notNullable().defaultTo("[]");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["org_id", "rating", "updated_at"]);
  });

  await knex.schema.createTable("question_vectors", (t) => {
    t.uuid("message_id").primary().references("id").inTable("chat_messages").onDelete("CASCADE");
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.text("model").notNullable();
    // Compared in the server, never searched in SQL: jsonb keeps any model's dimension.
    t.jsonb("embedding").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("question_vectors");
  await knex.schema.dropTableIfExists("chat_feedback");
  await knex.schema.dropTableIfExists("ai_credit_grants");
  await knex.schema.dropTableIfExists("ai_usage_months");
  await knex.schema.dropTableIfExists("ai_allowances");
  await knex.schema.alterTable("llm_usage_log", (t) => {
    t.dropColumns("call_key", "allowance_tokens", "credit_tokens");
  });
}
