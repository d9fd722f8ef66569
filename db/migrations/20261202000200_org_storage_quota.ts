/**
 * A per-organisation storage quota for uploaded files: `storage_quota_bytes` overrides
 * ORG_STORAGE_QUOTA_BYTES for one organisation (null = the setting). Usage is the sum of its
 * documents' `size_bytes`, counted at upload under a lock on the organisation's row.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("organizations", (t) => {
    t.bigInteger("storage_quota_bytes");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("organizations", (t) => t.dropColumn("storage_quota_bytes"));
}
