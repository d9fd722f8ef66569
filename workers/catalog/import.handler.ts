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
  type CatalogImportRow,
  completeCatalogImport,
  dropImportData,
  findCatalogImport,
  IMPORT_JOB_STEPS,
  importBodyParts,
  storeImportLines,
} from "../../db/queries/catalog-imports";
import { activeAdminIds } from "../../db/queries/users";
import { OperationEnded, type OperationSpec, StepRunner } from "../../operations/step-runner";
import type { WorkerDeps } from "../deps";
import { ExtractionError } from "../ingestion/extract/types";
import { splitImportInThread } from "../ingestion/isolation";
import { defineHandler, type JobContext } from "../registry";

/** Records per transaction: large enough that the cursor costs little, small enough that a retried batch is quick. */
const BATCH_RECORDS = 250;

/** What a failed import says: fixed sentences, so nothing internal reaches the API. */
const FAILED_MESSAGE =
  "The import stopped: the worker failed on it several times (an internal error, logged for the operator under this import's id). Records applied before it stopped stay applied; send the file again.";

export function importProgress(row: CatalogImportRow) {
  return {
    importId: row.id,
    status: row.phase,
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

interface ImportOfOrganisation {
  id: string;
  orgId: string;
  format: CatalogImportRow["format"];
  /** Who hears its progress: the organisation's active admins when the attempt began. */
  admins: string[];
}

/** The import as the step runner (operations/step-runner.ts) runs it: `split` the stored file once, then `apply` its records in batches. */
function catalogImport(deps: WorkerDeps, orgId: string, { job, log }: Pick<JobContext<"catalog-import">, "job" | "log">) {
  const spec: OperationSpec<(typeof IMPORT_JOB_STEPS)[number], ImportOfOrganisation, CatalogImportRow> = {
    name: "catalog import",
    table: "catalog_imports",
    steps: IMPORT_JOB_STEPS,
    async load(db, id) {
      const record = await findCatalogImport(db, id, orgId);
      return record && { record, subject: { id, orgId, format: record.format, admins: await activeAdminIds(db, orgId) } };
    },
    run: {
      async split({ subject }) {
        let failure: string | undefined;
        try {
          const split = await splitImportInThread(await importBodyParts(deps.db, subject.id), subject.format, deps.config, deps.log);
          if (split.ok) {
            const { problems, omitted, total } = split;
            await storeImportLines(deps.db, subject.id, { lines: new PackedLines(split.text, split.places), problems, omitted, total });
          } else failure = split.message;
        } catch (error) {
          // A thread that failed for a reason of its own (ExtractionThreadError) is retried by the job.
          if (!(error instanceof ExtractionError)) throw error;
          log.warn({ importId: subject.id, code: error.code }, "catalog import: the file could not be split within the thread's limits");
          failure = unreadable(error);
        }
        if (failure !== undefined) {
          await dropImportData(deps.db, subject.id);
          throw new OperationEnded("IMPORT_UNREADABLE", failure);
        }
      },
      async apply({ subject }) {
        const current = await findCatalogImport(deps.db, subject.id);
        if (current && current.next_seq > 0) log.info({ importId: subject.id, nextSeq: current.next_seq }, "catalog import resumes");
        for (;;) {
          const batch = await applyImportBatch(deps.db, subject.id, BATCH_RECORDS);
          for (const { line, error } of batch.unexpected)
            log.error({ importId: subject.id, line, err: error }, "catalog import: the database refused a record");
          if (batch.done) break;
          await job.updateProgress(importProgress(batch.import));
          await announce(deps, subject.admins, batch.import);
        }
        await completeCatalogImport(deps.db, subject.id);
      },
    },
    // Batches announce themselves (above); the runner's word counts only when the import ends.
    async announce(subject, record, update) {
      if (update.status !== "running") await announce(deps, subject.admins, record);
    },
    // Its records go; the counts and problems stay until the import is pruned.
    onFinalFailure: (subject) => dropImportData(deps.db, subject.id),
  };
  return new StepRunner(spec);
}

export const catalogImportHandler = defineHandler({
  queue: "catalog-import",
  async perform({ job, data, deps, log }) {
    const row = await findCatalogImport(deps.db, data.importId, data.orgId);
    // Still being received (no job should exist yet), or ended: a failed import's records were dropped, so there is nothing to resume.
    if (!row || row.phase === "receiving" || row.phase === "completed" || row.phase === "failed") return { skipped: row ? row.phase : "unknown import" };
    const ran = await catalogImport(deps, data.orgId, { job, log }).run(deps, { updateProgress: (p) => job.updateProgress(p), log }, data.importId);
    if (ran.outcome === "skipped") return { skipped: ran.reason };
    const progress = importProgress(ran.record);
    if (ran.outcome === "completed") log.info({ importId: ran.record.id, orgId: ran.record.org_id, ...progress.counts }, "catalog import completed");
    return progress;
  },
  async onFailed({ job, data, deps, log }, error, { final }) {
    if (!final) return;
    log.error({ importId: data.importId, err: error }, "catalog import failed for good");
    const runner = catalogImport(deps, data.orgId, { job, log });
    await runner.failed(deps, data.importId, { code: "IMPORT_FAILED", message: FAILED_MESSAGE });
  },
});
