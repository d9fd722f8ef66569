/**
 * Deleting an organisation without SQL.
 *
 * - `organizations.deleting_since`: set when an operator asks for the deletion; from then on its
 *   people can no longer sign in or use the API (db/queries/users.ts), while the queued
 *   `org-delete` job removes what it owns.
 * - `org_deletions`: one record per deletion, read by `GET /api/v1/ops/orgs/:id/deletion` and the
 *   CLI: its step and what each step removed. It does NOT reference `organizations` (the row it
 *   names is gone at the end, and the record must outlive it) and names the organisation in
 *   `target_org_id`, not `org_id`: it is the operator's record of a removal, not the
 *   organisation's data, so "no row with its org_id remains" holds once the deletion is done.
 */
import type { Knex } from "knex";

const STATUSES = ["queued", "running", "completed", "failed"] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("organizations", (t) => {
    t.timestamp("deleting_since", { useTz: true });
  });
  await knex.schema.createTable("org_deletions", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("target_org_id").notNullable().index();
    t.text("slug").notNullable();
    t.text("name").notNullable();
    // Who asked: an operator's user id (their own organisation survives), or null from the CLI.
    t.uuid("requested_by");
    t.text("requested_via").notNullable().checkIn(["api", "cli"], "org_deletions_requested_via");
    t.text("status")
      .notNullable()
      .defaultTo("queued")
      .checkIn([...STATUSES], "org_deletions_status");
    // The step running or last done (workers/organisations/org-delete.handler.ts), and how many times the job was queued.
    t.text("step");
    t.integer("runs").notNullable().defaultTo(1);
    // { "<kind>": count } accumulated as each batch is removed, so a resumed job reports the same totals.
    t.jsonb("removed").notNullable().defaultTo("{}");
    t.text("error");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("finished_at", { useTz: true });
  });
  // One unfinished deletion per organisation: asking twice answers the one under way.
  await knex.raw("CREATE UNIQUE INDEX org_deletions_one_open ON org_deletions (target_org_id) WHERE status IN ('queued', 'running', 'failed')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("org_deletions");
  await knex.schema.alterTable("organizations", (t) => t.dropColumn("deleting_since"));
}
