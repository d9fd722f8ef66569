/**
 * `catalog-import`: applies a bulk import the integration API received (server/routes/catalog).
 *
 * 1. The stored file is split into records (lib/catalog-import-file.ts) once, in a thread of the
 *    extraction pool: a hostile file (millions of lines, one huge array, deep nesting) costs that
 *    thread seconds and never the event loop that streams every organisation's answers. The split
 *    is bounded (IMPORT_MAX_RECORDS records, IMPORT_PROBLEMS_KEPT problems kept, the rest counted);
 *    lines that are not records are reported at once.
 * 2. Records are applied in batches, each record whole or refused with its line and reason, the
 *    cursor and counts moving with the batch (db/queries/catalog-imports.ts). A record the
 *    database refuses unexpectedly is refused alone (its error logged here), so one bad record
 *    never fails the import. A retried or redelivered job (its worker was killed) carries on from
 *    the cursor and ends with the same totals as an uninterrupted run.
 *
 * A failed import stores a fixed sentence and a code, never an exception's text (which can hold
 * SQL and its values); the details are in the log under the import's id.
 *
 * Progress goes to Bull Board (the job's progress) and to the organisation's admins' sockets
 * (`catalog_import`), so the console's Imports page moves as the import does.
 */
import { PackedLines } from "../../lib/catalog-import-packed";
import {
  applyImportBatch,
  finishCatalogImport,
  findCatalogImport,
  importBodyParts,
  storeImportLines,
  type CatalogImportRow,
} from "../../db/queries/catalog-imports";
import { activeAdminIds } from "../../db/queries/users";
import type { WorkerDeps } from "../deps";
import { ExtractionError } from "../ingestion/extract/types";
import { splitImportInThread } from "../ingestion/isolation";
import { defineHandler } from "../registry";

/** Records per transaction: large enough that the cursor costs little, small enough that a retried batch is quick. */
const BATCH_RECORDS = 250;

/** What a failed import says: fixed sentences, so nothing internal reaches the API. */
const FAILED_MESSAGE =
  "The import stopped: the worker failed on it several times (an internal error, logged for the operator under this import's id). Records applied before it stopped stay applied; send the file again.";

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

/** Why a file could not be read at all, for its sender: the thread's limits, in the words of an import. */
function unreadable(error: ExtractionError): string {
  if (error.code === "EXTRACTION_TIMEOUT") return "Reading the file took too long and was stopped; send it as NDJSON, or in several smaller imports.";
  if (error.code === "EXTRACTION_TOO_LARGE") return "Reading the file needed too much memory; send it as NDJSON, or in several smaller imports.";
  return 'The file could not be read as records; send NDJSON, a JSON array of records, or {"records": [...]}.';
}

export const catalogImportHandler = defineHandler({
  queue: "catalog-import",
  async perform({ job, data, deps, log }) {
    let row = await findCatalogImport(deps.db, data.importId, data.orgId);
    if (!row || row.status === "completed" || row.status === "failed" || row.status === "receiving") return { skipped: row ? row.status : "unknown import" };
    const admins = await activeAdminIds(deps.db, data.orgId);
    if (row.status === "received") {
      let failure: string | undefined;
      try {
        const split = await splitImportInThread(await importBodyParts(deps.db, row.id), row.format, deps.config, deps.log);
        if (split.ok) {
          const { problems, omitted, total } = split;
          await storeImportLines(deps.db, row.id, { lines: new PackedLines(split.text, split.places), problems, omitted, total });
        } else failure = split.message;
      } catch (error) {
        // A thread that failed for a reason of its own (ExtractionThreadError) is retried by the job.
        if (!(error instanceof ExtractionError)) throw error;
        log.warn({ importId: row.id, code: error.code }, "catalog import: the file could not be split within the thread's limits");
        failure = unreadable(error);
      }
      if (failure !== undefined) {
        row = await finishCatalogImport(deps.db, row.id, { status: "failed", code: "IMPORT_UNREADABLE", error: failure });
        await announce(deps, admins, row);
        return importProgress(row);
      }
    } else if (row.next_seq > 0) {
      log.info({ importId: row.id, nextSeq: row.next_seq }, "catalog import resumes");
    }
    for (;;) {
      const batch = await applyImportBatch(deps.db, data.importId, BATCH_RECORDS);
      row = batch.import;
      for (const { line, error } of batch.unexpected) log.error({ importId: row.id, line, err: error }, "catalog import: the database refused a record");
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
  async onFailed({ data, deps, log }, error, { final }) {
    if (!final) return;
    log.error({ importId: data.importId, err: error }, "catalog import failed for good");
    const row = await finishCatalogImport(deps.db, data.importId, { status: "failed", code: "IMPORT_FAILED", error: FAILED_MESSAGE });
    await announce(deps, await activeAdminIds(deps.db, data.orgId), row);
  },
});
