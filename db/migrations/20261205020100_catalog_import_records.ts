/**
 * A bulk catalog import's record takes the shared shape of long operations (see
 * 20261205020000_operation_records): `status` is queued | running | completed | failed like the
 * others, and the import's phase becomes its `step` — `receive` (the slot is taken, the body is
 * being read), `split` (the file is stored, waiting to be split into records), `apply` (records
 * are being applied), `done`. The five count columns become `counts` (jsonb), and the record gains
 * `runs` and `updated_at`. The API still answers the phase as its `status`
 * (db/queries/catalog-imports.ts `importPhase`).
 */
import type { Knex } from "knex";

const COUNTS = ["created", "updated", "unchanged", "deleted", "failed"] as const;
const countsObject = `jsonb_build_object(${COUNTS.map((c) => `'${c}', "${c}"`).join(", ")})`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE catalog_imports DROP CONSTRAINT IF EXISTS catalog_imports_status_check");
  await knex.schema.alterTable("catalog_imports", (t) => {
    t.text("step");
    t.integer("runs").notNullable().defaultTo(1);
    t.jsonb("counts").notNullable().defaultTo("{}");
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`UPDATE catalog_imports SET counts = ${countsObject}, updated_at = coalesce(finished_at, started_at, created_at)`);
  await knex.raw(`UPDATE catalog_imports SET step = CASE status
      WHEN 'receiving' THEN 'receive' WHEN 'received' THEN 'split' WHEN 'applying' THEN 'apply'
      WHEN 'completed' THEN 'done' ELSE (CASE WHEN total IS NULL THEN 'split' ELSE 'apply' END) END,
    status = CASE status WHEN 'receiving' THEN 'queued' WHEN 'received' THEN 'queued' WHEN 'applying' THEN 'running' ELSE status END`);
  await knex.schema.alterTable("catalog_imports", (t) => {
    for (const count of COUNTS) t.dropColumn(count);
    t.text("status").notNullable().defaultTo("queued").alter();
  });
  await knex.raw("ALTER TABLE catalog_imports ADD CONSTRAINT catalog_imports_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE catalog_imports DROP CONSTRAINT IF EXISTS catalog_imports_status_check");
  await knex.schema.alterTable("catalog_imports", (t) => {
    for (const count of COUNTS) t.integer(count).notNullable().defaultTo(0);
  });
  await knex.raw(`UPDATE catalog_imports SET ${COUNTS.map((c) => `"${c}" = coalesce((counts->>'${c}')::int, 0)`).join(", ")}`);
  await knex.raw(`UPDATE catalog_imports SET status = CASE
      WHEN status = 'queued' AND step = 'receive' THEN 'receiving' WHEN status = 'queued' THEN 'received'
      WHEN status = 'running' AND step = 'apply' THEN 'applying' WHEN status = 'running' THEN 'received' ELSE status END`);
  await knex.schema.alterTable("catalog_imports", (t) => {
    t.dropColumn("step");
    t.dropColumn("runs");
    t.dropColumn("counts");
    t.dropColumn("updated_at");
    t.text("status").notNullable().defaultTo("received").alter();
  });
  await knex.raw(
    "ALTER TABLE catalog_imports ADD CONSTRAINT catalog_imports_status_check CHECK (status IN ('receiving', 'received', 'applying', 'completed', 'failed'))",
  );
}
