/**
 * What the admin assistant needs beyond the first sketch: employees can be deactivated (kept,
 * but no longer signed in or counted), courses archived, and an action records who confirmed
 * it and how often it ran. Items keep their frozen target, a label the admin saw, and the
 * before → after of the change; one audit row per executed item (`action_item_id` unique) is
 * what makes re-running an item a no-op.
 */
import type { Knex } from "knex";

const ACTION_STATUSES = ["pending", "confirmed", "running", "completed", "partial", "failed", "rejected", "expired"];
const OLD_ACTION_STATUSES = ["pending", "confirmed", "running", "completed", "failed", "cancelled", "expired"];

async function replaceStatusCheck(knex: Knex, statuses: string[]): Promise<void> {
  await knex.raw("ALTER TABLE admin_actions DROP CONSTRAINT IF EXISTS admin_actions_status_check");
  // DDL takes no bind parameters; the list is our own constants.
  await knex.raw(`ALTER TABLE admin_actions ADD CONSTRAINT admin_actions_status_check CHECK (status IN (${statuses.map((s) => `'${s}'`).join(", ")}))`);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.boolean("is_active").notNullable().defaultTo(true);
    t.timestamp("deactivated_at", { useTz: true });
    t.index(["org_id", "department"]);
  });
  await knex.schema.alterTable("courses", (t) => {
    t.timestamp("archived_at", { useTz: true });
  });
  await replaceStatusCheck(knex, ACTION_STATUSES);
  await knex.schema.alterTable("admin_actions", (t) => {
    t.uuid("confirmed_by").references("id").inTable("users").onDelete("SET NULL");
    t.timestamp("confirmed_at", { useTz: true });
    t.timestamp("finished_at", { useTz: true });
    // Each run (first execution, then every resume) gets its own job id.
    t.integer("runs").notNullable().defaultTo(0);
    t.index(["session_id", "status"]);
  });
  await knex.schema.alterTable("admin_action_items", (t) => {
    t.text("label").notNullable().defaultTo("");
    t.jsonb("before");
    t.jsonb("after");
    t.index(["action_id", "status", "position"]);
  });
  await knex.schema.alterTable("audit_log", (t) => {
    t.uuid("action_id").references("id").inTable("admin_actions").onDelete("SET NULL");
    t.uuid("action_item_id").unique();
    t.uuid("confirmed_by").references("id").inTable("users").onDelete("SET NULL");
    t.jsonb("before");
    t.jsonb("after");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("audit_log", (t) => {
    t.dropColumns("action_id", "action_item_id", "confirmed_by", "before", "after");
  });
  await knex.schema.alterTable("admin_action_items", (t) => {
    t.dropIndex(["action_id", "status", "position"]);
    t.dropColumns("label", "before", "after");
  });
  await knex.schema.alterTable("admin_actions", (t) => {
    t.dropIndex(["session_id", "status"]);
    t.dropColumns("confirmed_by", "confirmed_at", "finished_at", "runs");
  });
  await knex("admin_actions").whereIn("status", ["partial", "rejected"]).update({ status: "cancelled" });
  await replaceStatusCheck(knex, OLD_ACTION_STATUSES);
  await knex.schema.alterTable("courses", (t) => t.dropColumn("archived_at"));
  await knex.schema.alterTable("users", (t) => {
    t.dropIndex(["org_id", "department"]);
    t.dropColumns("is_active", "deactivated_at");
  });
}
