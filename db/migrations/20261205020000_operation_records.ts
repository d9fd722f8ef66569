/**
 * One record shape for the long operations (operations/ runs them; db/queries/operations.ts reads
 * and writes the shape): an organisation's deletion (`org_deletions`), a person's erasure
 * (`person_erasures`) and export (`person_exports`) each keep, beside their own columns, the same
 *
 *   status (queued | running | completed | failed), step, runs, counts (jsonb `{kind: n}`),
 *   error_code + error, created_at, updated_at, started_at, finished_at.
 *
 * The deletion and the erasure called their counts `removed`: renamed, values kept. An export
 * gains the step, run count and times it lacked; existing rows get what they imply (a finished
 * export started when it was made, and ran once).
 */
import type { Knex } from "knex";

const RENAMED = ["org_deletions", "person_erasures"] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of RENAMED) {
    await knex.schema.alterTable(table, (t) => {
      t.renameColumn("removed", "counts");
      t.timestamp("started_at", { useTz: true });
    });
    await knex(table)
      .whereNot({ status: "queued" })
      .update({ started_at: knex.ref("created_at") });
  }
  await knex.schema.alterTable("person_exports", (t) => {
    t.text("step");
    t.integer("runs").notNullable().defaultTo(1);
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("started_at", { useTz: true });
  });
  await knex("person_exports").update({ updated_at: knex.raw("coalesce(finished_at, created_at)") });
  await knex("person_exports")
    .whereNot({ status: "queued" })
    .update({ started_at: knex.ref("created_at") });
  await knex("person_exports").where({ status: "completed" }).update({ step: "done" });
  await knex("person_exports").whereIn("status", ["running", "failed"]).update({ step: "build" });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("person_exports", (t) => {
    t.dropColumn("step");
    t.dropColumn("runs");
    t.dropColumn("updated_at");
    t.dropColumn("started_at");
  });
  for (const table of RENAMED) {
    await knex.schema.alterTable(table, (t) => {
      t.renameColumn("counts", "removed");
      t.dropColumn("started_at");
    });
  }
}
