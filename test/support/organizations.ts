/**
 * Removing a test's own organisations. Deleting one cascades through users, sessions, documents
 * and chunks; an ingestion worker still writing chunks for an upload of that organisation takes
 * the same rows in another order, and PostgreSQL ends one of the two with a deadlock (seen in CI
 * on the storage-quota suite). So: wait until none of the organisations' documents is still being
 * indexed, then delete, retrying the delete if it is still picked as the deadlock's victim.
 */
import { IN_PROGRESS_STATUSES } from "../../lib/document-status";
import type { Db } from "../../db/knex";

const SETTLE_MS = 30_000;
const DEADLOCK = "40P01";

export async function dropOrganisations(db: Db, orgIds: readonly string[]): Promise<void> {
  const ids = orgIds.filter(Boolean);
  if (ids.length === 0) return;
  const deadline = Date.now() + SETTLE_MS;
  while (Date.now() < deadline) {
    const [row] = await db("documents").whereIn("org_id", ids).whereIn("status", IN_PROGRESS_STATUSES).count<{ count: string }[]>("* as count");
    if (Number(row?.count ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db("organizations").whereIn("id", ids).delete();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
