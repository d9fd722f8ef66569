/**
 * Chat persistence for both agents. A turn is one user message plus at most one assistant
 * reply, tied by `turn_id`; UNIQUE(turn_id, role) makes a retried or duplicated job unable to
 * write a second answer to the same question.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("chat_sessions", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.text("agent_type").notNullable().checkIn(["tutor", "admin"]);
    t.text("title");
    // Rolling summary of the turns that no longer fit the prompt, and how many it covers.
    t.text("summary");
    t.integer("summary_turn_count").notNullable().defaultTo(0);
    // Tutor sessions pin {course_id, lesson_id} here.
    t.jsonb("context").notNullable().defaultTo("{}");
    t.boolean("is_active").notNullable().defaultTo(true);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Serves "my recent tutor conversations" without a sort.
    t.index(["user_id", "agent_type", "updated_at"]);
  });

  await knex.schema.createTable("chat_messages", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
    t.uuid("session_id").notNullable().references("id").inTable("chat_sessions").onDelete("CASCADE");
    t.uuid("turn_id").notNullable();
    t.text("role").notNullable().checkIn(["user", "assistant"]);
    t.text("content").notNullable().defaultTo("");
    // 'failed' keeps a visible record of a reply that errored, so the history explains the gap.
    t.text("status").notNullable().defaultTo("complete").checkIn(["complete", "failed"]);
    // Citations, tool calls, retrieval source, latencies, token counts.
    t.jsonb("metadata").notNullable().defaultTo("{}");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["turn_id", "role"]);
    t.index(["session_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("chat_messages");
  await knex.schema.dropTableIfExists("chat_sessions");
}
