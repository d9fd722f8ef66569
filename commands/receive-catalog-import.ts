/**
 * Takes a bulk catalog import in: the file is stored as received and the `catalog-import` job
 * queued to split and apply it (workers/catalog/import.handler.ts). A queue that refuses leaves
 * nothing behind: the import is removed and the caller told to send it again.
 */
import { createCatalogImport, deleteCatalogImport, type CatalogImportRow } from "../db/queries/catalog-imports";
import type { ImportFormat } from "../lib/catalog-import-file";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";

export async function receiveCatalogImport(
  deps: CommandDeps,
  input: { orgId: string; key: { id: string; name: string }; format: ImportFormat; parts: Buffer[] },
): Promise<CatalogImportRow> {
  const row = await createCatalogImport(deps.db, input);
  try {
    await deps.producer.enqueueCatalogImport({ orgId: input.orgId, importId: row.id });
  } catch (error) {
    await deleteCatalogImport(deps.db, row.id);
    throw new Refusal("unavailable", "QUEUE_UNAVAILABLE", "The import could not be queued (Redis refused it); nothing was stored. Send it again.", undefined, {
      cause: error,
    });
  }
  deps.log.info({ orgId: input.orgId, importId: row.id, bytes: row.byte_size, format: input.format, keyId: input.key.id }, "catalog import received");
  return row;
}
