/**
 * The catalog records endpoint: each record in its own transaction, so one refused record leaves
 * the others applied; answers one outcome per record, in the request's order. The request itself
 * is audited once as `integration_key.write_requested` (every write-scope request is), so a record
 * adds no event of its own — a batch of a thousand rows would otherwise bury the log.
 */
import { type Applied, applyCatalogRecord, ReferenceCache } from "../db/queries/catalog-writes";
import type { CatalogRecord } from "../lib/catalog-records";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function applyCatalogRecords(deps: Pick<CommandDeps, "db">, orgId: string, records: CatalogRecord[]): Promise<Applied[]> {
  const cache = new ReferenceCache();
  const outcomes: Applied[] = [];
  for (const record of records) outcomes.push(await withTransaction(deps, (trx) => applyCatalogRecord(trx, orgId, record, cache)));
  return outcomes;
}
