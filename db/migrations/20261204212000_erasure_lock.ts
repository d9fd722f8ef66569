/**
 * An erasure locks the person out from the moment it is asked for, not from its last step (issue 44,
 * point 4; review F6). `users.erasure_requested_at` is set in the transaction that opens the erasure
 * and never cleared (a failed erasure keeps the person locked until it is asked again and completes);
 * the CHECK makes it a database invariant that such a row is inactive, so no path — the People API,
 * SCIM, a sign-in, a future one — can bring the person back while their data is being erased: each
 * path that admits only active accounts refuses them, and a write that tries to reactivate them fails.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.timestamp("erasure_requested_at", { useTz: true });
  });
  // Erasures asked for before this release: open ones (queued, running, failed) and finished ones.
  await knex.raw(`
    UPDATE users u SET erasure_requested_at = coalesce(u.erased_at, e.first_asked)
      FROM (SELECT user_id, min(created_at) AS first_asked FROM person_erasures GROUP BY user_id) e
     WHERE e.user_id = u.id`);
  await knex.raw("UPDATE users SET erasure_requested_at = erased_at WHERE erasure_requested_at IS NULL AND erased_at IS NOT NULL");
  // Someone reactivated during an erasure under the old code is locked out again (their erasure's next run sweeps what they wrote).
  await knex.raw("UPDATE users SET is_active = false, deactivated_at = coalesce(deactivated_at, now()) WHERE erasure_requested_at IS NOT NULL AND is_active");
  await knex.raw("ALTER TABLE users ADD CONSTRAINT users_erasure_locks_out CHECK (erasure_requested_at IS NULL OR NOT is_active)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE users DROP CONSTRAINT IF EXISTS users_erasure_locks_out");
  await knex.schema.alterTable("users", (t) => t.dropColumn("erasure_requested_at"));
}
