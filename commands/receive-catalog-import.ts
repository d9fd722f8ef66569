/**
 * Takes a bulk catalog import in: the file is stored as received and the `catalog-import` job
 * queued to split and apply it (workers/catalog/import.handler.ts). A queue that refuses leaves
 * nothing behind: the import is removed and the caller told to send it again.
 */
import { createCatalogImport, deleteCatalogImport, pendingCatalogImports, type CatalogImportRow } from "../db/queries/catalog-imports";
import type { ImportFormat } from "../lib/catalog-import-file";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";

/**
 * Imports of one organisation that may wait or run at once: each can hold up to
 * CATALOG_IMPORT_MAX_BYTES in the database until it is split, and they share the workers with
 * every other organisation's imports, so a sync that posts file after file waits for its own.
 */
const MAX_PENDING_IMPORTS_PER_ORG = 3;

/** Refuses an import while the organisation already has as many waiting or running; checked before its body is read. */
export async function checkImportAllowed(deps: Pick<CommandDeps, "db">, orgId: string): Promise<void> {
  const pending = await pendingCatalogImports(deps.db, orgId);
  if (pending >= MAX_PENDING_IMPORTS_PER_ORG) {
    throw new Refusal(
      "conflict",
      "IMPORTS_PENDING",
      `The organisation has ${pending} imports waiting or running (at most ${MAX_PENDING_IMPORTS_PER_ORG}); send this one when one of them has ended.`,
      { pending, limit: MAX_PENDING_IMPORTS_PER_ORG },
    );
  }
}

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
