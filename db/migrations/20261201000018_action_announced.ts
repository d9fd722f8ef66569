/**
 * A pending action can be decided by a chat reply only once the admin has seen it: the turn
 * that proposed it records when its `done` went out (`announced_at`), and a reply counts only if
 * it was stored after that. `resumed_by` names the admin who resumed an action's failed items,
 * so the audit rows of a resumed run name who ran them.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("admin_actions", (t) => {
    t.timestamp("announced_at", { useTz: true });
    t.uuid("resumed_by").references("id").inTable("users").onDelete("SET NULL");
    t.index(["turn_id"]);
  });
  await knex.schema.alterTable("audit_log", (t) => {
    t.uuid("resumed_by").references("id").inTable("users").onDelete("SET NULL");
  });
  // Actions proposed before this column existed were shown by the answers stored with them.
  await knex.raw(
    "UPDATE admin_actions a SET announced_at = m.created_at FROM chat_messages m WHERE m.turn_id = a.turn_id AND m.role = 'assistant' AND a.announced_at IS NULL",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("audit_log", (t) => t.dropColumn("resumed_by"));
  await knex.schema.alterTable("admin_actions", (t) => {
    t.dropIndex(["turn_id"]);
    t.dropColumns("announced_at", "resumed_by");
  });
}
