/**
 * The `export` job: reads the person's data (db/queries/person-data.ts), builds the zip
 * (./export-archive.ts) and stores it on the export's record until PERSON_EXPORT_TTL_HOURS have
 * passed. A redelivered job whose record is already completed does nothing; one that died midway
 * builds the archive again (it is written once, at the end). Archives of the organisation that
 * expired meanwhile are dropped first, so expired copies do not pile up.
 */
import { collectPersonData, readExportedAttachment } from "../../db/queries/person-data";
import { completeExport, dropExpiredArchives, exportForJob, type PersonExportRow } from "../../db/queries/person-exports";
import { OperationEnded, type OperationSpec, StepRunner } from "../../operations/step-runner";
import type { WorkerDeps } from "../deps";
import type { JobContext } from "../registry";
import { storedFailureOf } from "../stored-failure";
import { buildExportArchive } from "./export-archive";

type Context = JobContext<"person-data">;

interface ExportOfPerson {
  id: string;
  orgId: string;
  userId: string;
  requestedBy: string | null;
}

/** The export as the step runner (operations/step-runner.ts) runs it: one step, `build`, written once at its end. */
function personExport(deps: WorkerDeps, orgId: string, log: Context["log"]): OperationSpec<"build", ExportOfPerson, PersonExportRow> {
  return {
    name: "person export",
    table: "person_exports",
    steps: ["build"],
    async load(db, id) {
      const record = await exportForJob(db, orgId, id);
      return record && { record, subject: { id, orgId, userId: record.user_id, requestedBy: record.requested_by } };
    },
    run: {
      async build({ subject }) {
        const dropped = await dropExpiredArchives(deps.db, orgId);
        const data = await collectPersonData(deps.db, orgId, subject.userId);
        if (!data) throw new OperationEnded("PERSON_GONE", "the person is no longer in the organisation");
        const started = performance.now();
        const { zip, counts } = await buildExportArchive(data, new Date(), (attachmentId) =>
          readExportedAttachment(deps.db, orgId, subject.userId, attachmentId),
        );
        await completeExport(deps.db, subject.id, zip, counts, deps.config.dataLifecycle.PERSON_EXPORT_TTL_HOURS);
        log.info(
          { exportId: subject.id, bytes: zip.length, buildMs: Math.round(performance.now() - started), droppedExpired: dropped, ...counts },
          "person export built",
        );
      },
    },
    announce(subject, _record, { status }) {
      if (subject.requestedBy) deps.userEvents.emit(subject.requestedBy, "person_data", { kind: "export", id: subject.id, status, step: "build" });
    },
  };
}

export async function runExport({ job, deps, log }: Context, orgId: string, exportId: string): Promise<unknown> {
  const ran = await new StepRunner(personExport(deps, orgId, log)).run(deps, { updateProgress: (progress) => job.updateProgress(progress), log }, exportId);
  if (ran.outcome === "skipped") return { skipped: ran.reason === "completed" ? "completed" : "unknown export" };
  if (ran.outcome === "ended") return { failed: "person gone" };
  return { bytes: ran.record.archive_bytes, counts: ran.record.counts };
}

/** The last attempt failed: the record says so and whoever asked hears it (they ask again). */
export async function failedExport({ deps, log }: Context, orgId: string, exportId: string, error: unknown): Promise<void> {
  await new StepRunner(personExport(deps, orgId, log)).failed(deps, exportId, storedFailureOf(error));
}
