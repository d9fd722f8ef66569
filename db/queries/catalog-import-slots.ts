/**
 * A bulk import's place before and after it runs: the slot it takes before its body is read, the
 * body stored within the organisation's storage quota, and the pruning of old finished imports.
 *
 * The slot is the import's row itself, created `queued` at step `receive` (its phase `receiving`) under a lock on the organisation's row
 * with the pending imports counted in the same transaction: of N parallel posts exactly as many
 * as there are free slots get one, and the others are refused before reading a byte. A server
 * that dies mid-read leaves a `receiving` row; it stops counting after RECEIVING_EXPIRES_MS and
 * the prune sweep removes it.
 */
import type { Db } from "../knex";
import type { ImportFormat } from "../../lib/catalog-import-file";
import { StorageQuotaExceeded, storageUsage } from "./document-lifecycle";
import { rowOf, type CatalogImportRow } from "./catalog-imports";

/** Longer than any body read can take (Node's request timeout is 5 minutes). */
export const RECEIVING_EXPIRES_MS = 15 * 60_000;

/** Imports still to end, as the slot counts them: stored and waiting, applying, or being received now (a reservation abandoned mid-read stops counting). */
function pending(db: Db, orgId: string) {
  return db("catalog_imports")
    .where({ org_id: orgId })
    .whereIn("status", ["queued", "running"])
    .andWhere((q) =>
      q
        .whereNot({ step: "receive" })
        .orWhere((r) => r.where({ step: "receive" }).andWhere("created_at", ">", db.raw("now() - ?::interval", [`${RECEIVING_EXPIRES_MS} milliseconds`]))),
    );
}

export type SlotOutcome = { ok: true; import: CatalogImportRow } | { ok: false; pending: number };

/** Takes one of the organisation's `limit` import slots, or says how many imports hold them. */
export async function reserveImportSlot(
  db: Db,
  input: { orgId: string; key: { id: string; name: string }; format: ImportFormat; limit: number },
): Promise<SlotOutcome> {
  return db.transaction(async (trx) => {
    await trx("organizations").where({ id: input.orgId }).forUpdate().first("id");
    const row = await pending(trx, input.orgId).count("* as n").first();
    const held = Number(row?.n ?? 0);
    if (held >= input.limit) return { ok: false, pending: held };
    const [created] = await trx("catalog_imports")
      .insert({
        org_id: input.orgId,
        integration_key_id: input.key.id,
        key_name: input.key.name,
        format: input.format,
        status: "queued",
        step: "receive",
        byte_size: 0,
      })
      .returning("*");
    return { ok: true, import: rowOf(created) };
  });
}

/**
 * Stores the body of a `receiving` import (parts of up to 1 MiB) and makes it `received`, within the
 * organisation's storage quota: checked under the organisation's row lock like an upload, so an
 * import and an upload cannot both take the last free bytes (StorageQuotaExceeded, nothing stored).
 */
export async function storeImportBody(db: Db, importId: string, orgId: string, parts: Buffer[], defaultQuotaBytes: number): Promise<CatalogImportRow> {
  return db.transaction(async (trx) => {
    await trx("organizations").where({ id: orgId }).forUpdate().first("id");
    const bytes = parts.reduce((sum, part) => sum + part.length, 0);
    const usage = await storageUsage(trx, orgId, defaultQuotaBytes);
    if (usage.usedBytes + bytes > usage.quotaBytes) throw new StorageQuotaExceeded(usage, bytes);
    for (const [part, chunk] of parts.entries()) await trx("catalog_import_parts").insert({ import_id: importId, part, bytes: chunk });
    const [row] = await trx("catalog_imports")
      .where({ id: importId, status: "queued", step: "receive" })
      .update({ step: "split", byte_size: bytes, updated_at: trx.fn.now() })
      .returning("*");
    if (!row) throw new Error(`catalog import ${importId} is no longer receiving`);
    return rowOf(row);
  });
}

/** Gives a slot back: the body was refused, or could not be stored or queued; nothing of it stays. */
export async function releaseImportSlot(db: Db, importId: string): Promise<void> {
  await db("catalog_imports").where({ id: importId, status: "queued" }).whereIn("step", ["receive", "split"]).delete();
}

/** Deletes imports finished before `finishedBefore` (their problems with them) and reservations abandoned mid-read. */
export async function pruneCatalogImports(db: Db, finishedBefore: Date): Promise<{ finished: number; abandoned: number }> {
  const finished = await db("catalog_imports").whereIn("status", ["completed", "failed"]).andWhere("finished_at", "<", finishedBefore).delete();
  const abandoned = await db("catalog_imports")
    .where({ status: "queued", step: "receive" })
    .andWhere("created_at", "<", db.raw("now() - ?::interval", [`${RECEIVING_EXPIRES_MS} milliseconds`]))
    .delete();
  return { finished, abandoned };
}
