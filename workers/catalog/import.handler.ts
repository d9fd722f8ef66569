/**
 * `catalog-import`: applies a bulk import the integration API received (server/routes/catalog).
 *
 * 1. The stored file is split into records (lib/catalog-import-file.ts) once, here rather than
 *    on a server's event loop; lines that are not records are reported at once.
 * 2. Records are applied in batches, each record whole or refused with its line and reason, the
 *    cursor and counts moving with the batch (db/queries/catalog-imports.ts). A retried or
 *    redelivered job (its worker was killed) carries on from the cursor and ends with the same
 *    totals as an uninterrupted run.
 *
 * Progress goes to Bull Board (the job's progress) and to the organisation's admins' sockets
 * (`catalog_import`), so the console's Imports page moves as the import does.
 */
import { splitImportBody } from "../../lib/catalog-import-file";
import {
  applyImportBatch,
  finishCatalogImport,
  findCatalogImport,
  importBody,
  storeImportLines,
  type CatalogImportRow,
} from "../../db/queries/catalog-imports";
import { activeAdminIds } from "../../db/queries/users";
import type { WorkerDeps } from "../deps";
import { defineHandler } from "../registry";

/** Records per transaction: large enough that the cursor costs little, small enough that a retried batch is quick. */
const BATCH_RECORDS = 250;

export function importProgress(row: CatalogImportRow) {
  return {
    importId: row.id,
    status: row.status,
    total: row.total,
    done: row.created + row.updated + row.unchanged + row.deleted + row.failed,
    counts: { created: row.created, updated: row.updated, unchanged: row.unchanged, deleted: row.deleted, failed: row.failed },
  };
}

async function announce(deps: WorkerDeps, admins: string[], row: CatalogImportRow): Promise<void> {
  const progress = importProgress(row);
  for (const adminId of admins) deps.userEvents.emit(adminId, "catalog_import", progress);
}

export const catalogImportHandler = defineHandler({
  queue: "catalog-import",
  async perform({ job, data, deps, log }) {
    let row = await findCatalogImport(deps.db, data.importId, data.orgId);
    if (!row || row.status === "completed" || row.status === "failed") return { skipped: row ? row.status : "unknown import" };
    const admins = await activeAdminIds(deps.db, data.orgId);
    if (row.status === "received") {
      const split = splitImportBody(await importBody(deps.db, row.id), row.format);
      if (!split.ok) {
        row = await finishCatalogImport(deps.db, row.id, { status: "failed", error: split.message });
        await announce(deps, admins, row);
        return importProgress(row);
      }
      await storeImportLines(deps.db, row.id, split.lines, split.problems);
    } else if (row.next_seq > 0) {
      log.info({ importId: row.id, nextSeq: row.next_seq }, "catalog import resumes");
    }
    for (;;) {
      const batch = await applyImportBatch(deps.db, data.importId, BATCH_RECORDS);
      row = batch.import;
      if (batch.done) break;
      await job.updateProgress(importProgress(row));
      await announce(deps, admins, row);
    }
    row = await finishCatalogImport(deps.db, row.id, { status: "completed" });
    await announce(deps, admins, row);
    const progress = importProgress(row);
    log.info({ importId: row.id, orgId: row.org_id, ...progress.counts }, "catalog import completed");
    return progress;
  },
  async onFailed({ data, deps }, error, { final }) {
    if (!final) return;
    const row = await finishCatalogImport(deps.db, data.importId, { status: "failed", error: error instanceof Error ? error.message : String(error) });
    await announce(deps, await activeAdminIds(deps.db, data.orgId), row);
  },
});
