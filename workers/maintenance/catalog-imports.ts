/**
 * Old bulk imports are deleted with what they kept (their problems; an unfinished one's file or
 * records, were any left): an organisation's imports are bounded in time as each is in size.
 * Abandoned reservations (a server that died while reading a body) go too.
 */
import { pruneCatalogImports } from "../../db/queries/catalog-import-slots";
import type { Db } from "../../db/knex";

/**
 * How long a finished import stays readable (API and console): a month covers a monthly sync
 * whose owner looks at last month's refused records before sending the next file.
 */
export const CATALOG_IMPORT_RETENTION_MS = 30 * 24 * 3600_000;

export function pruneOldCatalogImports(db: Db, now = Date.now()): Promise<{ finished: number; abandoned: number }> {
  return pruneCatalogImports(db, new Date(now - CATALOG_IMPORT_RETENTION_MS));
}
