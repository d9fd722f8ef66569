/**
 * The records of people's data exports (`person_exports`): asked for by the person (`self`) or by
 * an admin (`admin`), built by the `person-data` queue, downloaded until they expire. Every read
 * is scoped by organisation, person and requester kind, so one person's (or one organisation's)
 * export is never found from another's, and the person's copy and an admin's stay apart.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { recordAudit } from "./audit-log";
import { completeOperation, failOperation, OPERATION_COLUMNS, type OperationRecord, parseOperation } from "./operations";

export type ExportRequester = "self" | "admin";

/** A person's export: the operation record (./operations.ts; its counts say how many of each kind the archive holds) and the archive's facts. */
export interface PersonExportRow extends OperationRecord {
  org_id: string;
  user_id: string;
  requested_by: string | null;
  requested_via: ExportRequester;
  archive_bytes: number | null;
  expires_at: Date | null;
}

/** Everything but the archive itself, which only the download reads. */
const COLUMNS = [...OPERATION_COLUMNS, "org_id", "user_id", "requested_by", "requested_via", "archive_bytes", "expires_at"];

function parseRow(row: Record<string, unknown> | undefined): PersonExportRow | undefined {
  const parsed = parseOperation<PersonExportRow>(row);
  if (!parsed) return undefined;
  return { ...parsed, archive_bytes: parsed.archive_bytes === null || parsed.archive_bytes === undefined ? null : Number(parsed.archive_bytes) };
}

export interface ExportOwner {
  orgId: string;
  userId: string;
  via: ExportRequester;
}

/**
 * Opens an export for the person, or answers the one already queued or running for the same
 * requester kind (`queue: false`): asking twice builds one archive.
 */
export async function openPersonExport(db: Db, owner: ExportOwner, requestedBy: string): Promise<{ row: PersonExportRow; queue: boolean }> {
  return db.transaction(async (trx) => {
    // The person's row is locked so two requests at once cannot both find nothing open.
    await trx("users").where({ id: owner.userId, org_id: owner.orgId }).forUpdate().first("id");
    const open = parseRow(
      await trx("person_exports")
        .select(COLUMNS)
        .where({ org_id: owner.orgId, user_id: owner.userId, requested_via: owner.via })
        .whereIn("status", ["queued", "running"])
        .first(),
    );
    const opened = open
      ? { row: open, queue: false }
      : {
          row: parseRow(
            (
              await trx("person_exports")
                .insert({ org_id: owner.orgId, user_id: owner.userId, requested_by: requestedBy, requested_via: owner.via })
                .returning(COLUMNS)
            )[0],
          )!,
          queue: true,
        };
    await auditExport(trx, "person.export_requested", owner, opened.row.id, requestedBy);
    return opened;
  });
}

/**
 * Who asked for or downloaded whose export (review F7): every request and every download, the
 * person's own included. The target is the export (its id outlives its record); the person is named
 * only in `details`, which their erasure scrubs, so the row stays in the trail without naming them.
 */
async function auditExport(
  trx: Knex.Transaction,
  name: "person.export_requested" | "person.export_downloaded",
  owner: ExportOwner,
  exportId: string,
  actorId: string,
): Promise<void> {
  await recordAudit(trx, {
    name,
    orgId: owner.orgId,
    actor: { type: "person", id: actorId },
    target: { type: "person_export", id: exportId },
    details: { person_id: owner.userId, via: owner.via },
  });
}

/** One export of the person for this requester kind; undefined for anyone else's. */
export async function findPersonExport(db: Db, owner: ExportOwner, exportId: string): Promise<PersonExportRow | undefined> {
  return parseRow(
    await db("person_exports").select(COLUMNS).where({ id: exportId, org_id: owner.orgId, user_id: owner.userId, requested_via: owner.via }).first(),
  );
}

/** The person's newest export for this requester kind, whatever its status. */
export async function latestPersonExport(db: Db, owner: ExportOwner): Promise<PersonExportRow | undefined> {
  return parseRow(
    await db("person_exports")
      .select(COLUMNS)
      .where({ org_id: owner.orgId, user_id: owner.userId, requested_via: owner.via })
      .orderBy("created_at", "desc")
      .first(),
  );
}

/**
 * The archive of a completed, unexpired export, with the audit row of its download by `actorId` in
 * the same transaction; undefined otherwise (expired archives are never served, nothing is audited).
 */
export async function downloadExportArchive(db: Db, owner: ExportOwner, exportId: string, actorId: string): Promise<Buffer | undefined> {
  return db.transaction(async (trx) => {
    const row = await trx("person_exports as e")
      .join("users as u", "u.id", "e.user_id")
      .select("e.archive")
      .where({ "e.id": exportId, "e.org_id": owner.orgId, "e.user_id": owner.userId, "e.requested_via": owner.via, "e.status": "completed" })
      .where("e.expires_at", ">", trx.fn.now())
      // Once their erasure is asked for, nobody downloads the person's data any more (it is deleted by the erasure's row step).
      .whereNull("u.erasure_requested_at")
      .first();
    if (!row?.archive) return undefined;
    await auditExport(trx, "person.export_downloaded", owner, exportId, actorId);
    return row.archive as Buffer;
  });
}

/** The record a job works on (by id and organisation only: the job's payload names nothing else). */
export async function exportForJob(db: Db, orgId: string, exportId: string): Promise<PersonExportRow | undefined> {
  return parseRow(await db("person_exports").select(COLUMNS).where({ id: exportId, org_id: orgId }).first());
}

/** Stores the archive and opens the download for `ttlHours` from now; a second completion (a redelivered job) changes nothing. */
export async function completeExport(db: Db, exportId: string, archive: Buffer, counts: Record<string, number>, ttlHours: number): Promise<void> {
  await completeOperation(db, "person_exports", exportId, {
    archive,
    archive_bytes: archive.length,
    counts: JSON.stringify(counts),
    // The database's clock for both, as every read compares with it.
    expires_at: db.raw("now() + make_interval(hours => ?)", [ttlHours]),
  });
}

/** Marks it failed with a code and a sentence of ours (the job could not be queued). */
export const failExport = (db: Db, exportId: string, failure: { code: string; message: string }): Promise<boolean> =>
  failOperation(db, "person_exports", exportId, failure);

/** Removes the organisation's expired archives (their records stay, marked by `expires_at`); returns how many. */
export async function dropExpiredArchives(db: Db, orgId: string): Promise<number> {
  return db("person_exports")
    .where({ org_id: orgId, status: "completed" })
    .whereNotNull("archive")
    .where("expires_at", "<=", db.fn.now())
    .update({ archive: null });
}
