/**
 * A running admin action can be stopped (issue 34, point 2): it ends `stopped`, with the items it
 * had not started left pending, so a resume runs exactly those. Who stopped it and when is kept
 * in the action's summary; only the status list changes here.
 */
import type { Knex } from "knex";

const WITH_STOPPED = ["pending", "confirmed", "running", "completed", "partial", "failed", "rejected", "expired", "stopped"];
const WITHOUT_STOPPED = WITH_STOPPED.filter((status) => status !== "stopped");

async function replaceStatusCheck(knex: Knex, statuses: string[]): Promise<void> {
  await knex.raw("ALTER TABLE admin_actions DROP CONSTRAINT IF EXISTS admin_actions_status_check");
  // DDL takes no bind parameters; the list is our own constants.
  await knex.raw(`ALTER TABLE admin_actions ADD CONSTRAINT admin_actions_status_check CHECK (status IN (${statuses.map((s) => `'${s}'`).join(", ")}))`);
}

export async function up(knex: Knex): Promise<void> {
  await replaceStatusCheck(knex, WITH_STOPPED);
}

export async function down(knex: Knex): Promise<void> {
  // A stopped action kept its undone items pending: partial is the older status that can be resumed.
  await knex("admin_actions").where({ status: "stopped" }).update({ status: "partial" });
  await replaceStatusCheck(knex, WITHOUT_STOPPED);
}
