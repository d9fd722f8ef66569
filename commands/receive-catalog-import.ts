/**
 * Takes a bulk catalog import in, in two steps around reading its body:
 * 1. `reserveCatalogImport` takes one of the organisation's MAX_PENDING_IMPORTS_PER_ORG slots
 *    atomically, before a byte of the body is read: parallel posts past the limit are refused
 *    (409 IMPORTS_PENDING) without buffering up to CATALOG_IMPORT_MAX_BYTES each.
 * 2. `receiveCatalogImport` stores the body within the organisation's storage quota (409
 *    STORAGE_QUOTA_EXCEEDED, nothing stored) and queues the `catalog-import` job to split and
 *    apply it (workers/catalog/import.handler.ts), fair between organisations.
 * A body refused or a queue that refuses gives the slot back and leaves nothing behind.
 */
import { releaseImportSlot, reserveImportSlot, storeImportBody } from "../db/queries/catalog-import-slots";
import type { CatalogImportRow } from "../db/queries/catalog-imports";
import { StorageQuotaExceeded } from "../db/queries/document-lifecycle";
import type { ImportFormat } from "../lib/catalog-import-file";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { quotaRefusal } from "./upload-document";

/**
 * Imports of one organisation that may wait or run at once: each can hold up to
 * CATALOG_IMPORT_MAX_BYTES in the database until it is split, and they share the workers with
 * every other organisation's imports, so a sync that posts file after file waits for its own.
 */
const MAX_PENDING_IMPORTS_PER_ORG = 3;

/** Takes a slot for an import whose body is about to be read, or refuses it (409 IMPORTS_PENDING). */
export async function reserveCatalogImport(
  deps: Pick<CommandDeps, "db">,
  input: { orgId: string; key: { id: string; name: string }; format: ImportFormat },
): Promise<CatalogImportRow> {
  const slot = await reserveImportSlot(deps.db, { ...input, limit: MAX_PENDING_IMPORTS_PER_ORG });
  if (!slot.ok) {
    throw new Refusal(
      "conflict",
      "IMPORTS_PENDING",
      `The organisation has ${slot.pending} imports waiting or running (at most ${MAX_PENDING_IMPORTS_PER_ORG}); send this one when one of them has ended.`,
      { pending: slot.pending, limit: MAX_PENDING_IMPORTS_PER_ORG },
    );
  }
  return slot.import;
}

/** Gives back the slot of an import whose body was not stored (too large, the client went away). */
export async function abandonCatalogImport(deps: Pick<CommandDeps, "db">, importId: string): Promise<void> {
  await releaseImportSlot(deps.db, importId);
}

export async function receiveCatalogImport(
  deps: CommandDeps,
  reserved: CatalogImportRow,
  input: { parts: Buffer[]; defaultQuotaBytes: number },
): Promise<CatalogImportRow> {
  let row: CatalogImportRow;
  try {
    row = await storeImportBody(deps.db, reserved.id, reserved.org_id, input.parts, input.defaultQuotaBytes);
  } catch (error) {
    await releaseImportSlot(deps.db, reserved.id);
    if (error instanceof StorageQuotaExceeded) throw quotaRefusal(error);
    throw error;
  }
  try {
    await deps.producer.enqueueCatalogImport({ orgId: row.org_id, importId: row.id });
  } catch (error) {
    await releaseImportSlot(deps.db, row.id);
    throw new Refusal("unavailable", "QUEUE_UNAVAILABLE", "The import could not be queued (Redis refused it); nothing was stored. Send it again.", undefined, {
      cause: error,
    });
  }
  deps.log.info({ orgId: row.org_id, importId: row.id, bytes: row.byte_size, format: row.format, keyId: row.integration_key_id }, "catalog import received");
  return row;
}
