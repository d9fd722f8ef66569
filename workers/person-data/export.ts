/**
 * The `export` job: reads the person's data (db/queries/person-data.ts), builds the zip
 * (./export-archive.ts) and stores it on the export's record until PERSON_EXPORT_TTL_HOURS have
 * passed. A redelivered job whose record is already completed does nothing; one that died midway
 * builds the archive again (it is written once, at the end). Archives of the organisation that
 * expired meanwhile are dropped first, so expired copies do not pile up.
 */
import { collectPersonData } from "../../db/queries/person-data";
import { completeExport, dropExpiredArchives, exportForJob, failExport, markExportRunning } from "../../db/queries/person-exports";
import type { JobContext } from "../registry";
import { storedFailureOf } from "../stored-failure";
import { buildExportArchive } from "./export-archive";

type Context = JobContext<"person-data">;

export async function runExport({ deps, log }: Context, orgId: string, exportId: string): Promise<unknown> {
  const record = await exportForJob(deps.db, orgId, exportId);
  if (!record || record.status === "completed") return { skipped: record ? "completed" : "unknown export" };
  await markExportRunning(deps.db, exportId);
  const announce = (status: "running" | "completed" | "failed") =>
    record.requested_by && deps.userEvents.emit(record.requested_by, "person_data", { kind: "export", id: exportId, status, step: "build" });
  announce("running");
  const dropped = await dropExpiredArchives(deps.db, orgId);
  const data = await collectPersonData(deps.db, orgId, record.user_id);
  if (!data) {
    await failExport(deps.db, exportId, { code: "PERSON_GONE", message: "the person is no longer in the organisation" });
    announce("failed");
    return { failed: "person gone" };
  }
  const started = performance.now();
  const { zip, counts } = await buildExportArchive(data, new Date());
  await completeExport(deps.db, exportId, zip, counts, deps.config.dataLifecycle.PERSON_EXPORT_TTL_HOURS);
  announce("completed");
  log.info({ exportId, bytes: zip.length, buildMs: Math.round(performance.now() - started), droppedExpired: dropped, ...counts }, "person export built");
  return { bytes: zip.length, counts };
}

/** The last attempt failed: the record says so and whoever asked hears it (they ask again). */
export async function failedExport({ deps }: Context, orgId: string, exportId: string, error: unknown): Promise<void> {
  await failExport(deps.db, exportId, storedFailureOf(error));
  const record = await exportForJob(deps.db, orgId, exportId);
  if (record?.requested_by) deps.userEvents.emit(record.requested_by, "person_data", { kind: "export", id: exportId, status: "failed", step: "build" });
}
