/**
 * Bulk catalog imports: the file as received, its records in the order they are applied, the
 * cursor and counts of the job that applies them, and the records it refused (see the migration
 * 20261203000010_catalog_imports). The cursor moves in the same transaction as the records it
 * passes, so a job killed mid-batch applies that batch again from the start — and, records
 * being idempotent, with the same outcome.
 */
import type { Knex } from "knex";
import type { ImportFormat, ImportLine, ImportLineProblem } from "../../lib/catalog-import-file";
import { parseCatalogRecord, type CatalogRecord } from "../../lib/catalog-records";
import type { Db } from "../knex";
import { applyCatalogRecord, ReferenceCache, type Applied } from "./catalog-writes";

export const IMPORT_STATUSES = ["received", "applying", "completed", "failed"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
}

export interface CatalogImportRow extends ImportCounts {
  id: string;
  org_id: string;
  integration_key_id: string | null;
  key_name: string | null;
  format: ImportFormat;
  status: ImportStatus;
  byte_size: number;
  total: number | null;
  next_seq: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const COUNT_COLUMNS = ["created", "updated", "unchanged", "deleted", "failed"] as const;

function rowOf(row: Record<string, unknown>): CatalogImportRow {
  return { ...(row as unknown as CatalogImportRow), byte_size: Number(row.byte_size) };
}

/** Stores a received file (already split into parts) as a new import, in one transaction. */
export async function createCatalogImport(
  db: Db,
  input: { orgId: string; key: { id: string; name: string }; format: ImportFormat; parts: Buffer[] },
): Promise<CatalogImportRow> {
  return db.transaction(async (trx) => {
    const [row] = await trx("catalog_imports")
      .insert({
        org_id: input.orgId,
        integration_key_id: input.key.id,
        key_name: input.key.name,
        format: input.format,
        byte_size: input.parts.reduce((sum, part) => sum + part.length, 0),
      })
      .returning("*");
    if (input.parts.length > 0) {
      await trx("catalog_import_parts").insert(input.parts.map((bytes, part) => ({ import_id: row.id, part, bytes })));
    }
    return rowOf(row);
  });
}

export async function findCatalogImport(db: Db, importId: string, orgId?: string): Promise<CatalogImportRow | undefined> {
  const row = await db("catalog_imports")
    .where({ id: importId, ...(orgId ? { org_id: orgId } : {}) })
    .first();
  return row ? rowOf(row) : undefined;
}

/** The organisation's imports, newest first. */
export async function listCatalogImports(db: Db, orgId: string, limit: number): Promise<CatalogImportRow[]> {
  const rows = await db("catalog_imports").where({ org_id: orgId }).orderBy("created_at", "desc").orderBy("id").limit(limit);
  return rows.map(rowOf);
}

/** The records an import refused, by line, a page after `afterLine`. */
export async function importProblems(db: Db, importId: string, afterLine: number, limit: number): Promise<ImportLineProblem[]> {
  return db("catalog_import_problems")
    .where({ import_id: importId })
    .andWhere("line", ">", afterLine)
    .orderBy("line")
    .limit(limit)
    .select("line", "code", "message");
}

/** The file as received (only while the import is `received`). */
export async function importBody(db: Db, importId: string): Promise<Buffer> {
  const parts = await db("catalog_import_parts").where({ import_id: importId }).orderBy("part").select("bytes");
  return Buffer.concat(parts.map((p: { bytes: Buffer }) => p.bytes));
}

const LINE_INSERT_BATCH = 500;

/**
 * Replaces the received file by its records and the lines refused while splitting it, and starts
 * applying: one transaction, done once (a redelivered job finds the import `applying`).
 */
export async function storeImportLines(db: Db, importId: string, lines: ImportLine[], problems: ImportLineProblem[]): Promise<void> {
  await db.transaction(async (trx) => {
    const current = await trx("catalog_imports").where({ id: importId }).forUpdate().first("status");
    if (current?.status !== "received") return;
    for (let i = 0; i < lines.length; i += LINE_INSERT_BATCH) {
      await trx("catalog_import_lines").insert(
        lines.slice(i, i + LINE_INSERT_BATCH).map((line, offset) => ({ import_id: importId, seq: i + offset, line: line.line, text: line.text })),
      );
    }
    await insertProblems(trx, importId, problems);
    await trx("catalog_import_parts").where({ import_id: importId }).delete();
    await trx("catalog_imports")
      .where({ id: importId })
      .update({ status: "applying", total: lines.length + problems.length, failed: problems.length, started_at: trx.fn.now() });
  });
}

async function insertProblems(trx: Knex.Transaction, importId: string, problems: ImportLineProblem[]): Promise<void> {
  for (let i = 0; i < problems.length; i += LINE_INSERT_BATCH) {
    await trx("catalog_import_problems")
      .insert(problems.slice(i, i + LINE_INSERT_BATCH).map((p) => ({ import_id: importId, line: p.line, code: p.code, message: p.message })))
      .onConflict(["import_id", "line"])
      .ignore();
  }
}

export interface BatchOutcome {
  done: boolean;
  import: CatalogImportRow;
}

/**
 * Applies the next `batchSize` records of an import, each whole or refused, and moves the cursor
 * and counts with them. The import row is locked meanwhile, so two deliveries of the job cannot
 * apply the same batch side by side.
 */
export async function applyImportBatch(db: Db, importId: string, batchSize: number): Promise<BatchOutcome> {
  return db.transaction(async (trx) => {
    const current = rowOf(await trx("catalog_imports").where({ id: importId }).forUpdate().first());
    const lines: Array<{ seq: number; line: number; text: string }> = await trx("catalog_import_lines")
      .where({ import_id: importId })
      .andWhere("seq", ">=", current.next_seq)
      .orderBy("seq")
      .limit(batchSize)
      .select("seq", "line", "text");
    if (lines.length === 0) return { done: true, import: current };
    const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 };
    const problems: ImportLineProblem[] = [];
    const cache = new ReferenceCache();
    for (const { line, text } of lines) {
      const applied = await applyLine(trx, current.org_id, text, cache);
      if (applied.ok) counts[applied.result]++;
      else {
        counts.failed++;
        problems.push({ line, ...applied.problem });
      }
    }
    await insertProblems(trx, importId, problems);
    const increments = Object.fromEntries(COUNT_COLUMNS.map((column) => [column, trx.raw("?? + ?", [column, counts[column]])]));
    const [row] = await trx("catalog_imports")
      .where({ id: importId })
      .update({ ...increments, next_seq: lines.at(-1)!.seq + 1 })
      .returning("*");
    return { done: false, import: rowOf(row) };
  });
}

function applyLine(trx: Knex.Transaction, orgId: string, text: string, cache: ReferenceCache): Promise<Applied> {
  const parsed = parseCatalogRecord(JSON.parse(text));
  if (!parsed.ok) return Promise.resolve(parsed);
  return applyCatalogRecord(trx, orgId, parsed.record, cache);
}

/** Ends an import: its records are dropped (the counts and problems stay). */
export async function finishCatalogImport(
  db: Db,
  importId: string,
  outcome: { status: "completed" } | { status: "failed"; error: string },
): Promise<CatalogImportRow> {
  return db.transaction(async (trx) => {
    await trx("catalog_import_lines").where({ import_id: importId }).delete();
    await trx("catalog_import_parts").where({ import_id: importId }).delete();
    const [row] = await trx("catalog_imports")
      .where({ id: importId })
      .update({ status: outcome.status, error: outcome.status === "failed" ? outcome.error : null, finished_at: trx.fn.now() })
      .returning("*");
    return rowOf(row);
  });
}

/**
 * The records endpoint: each record in its own transaction, so one refused record leaves the
 * others applied; answers one outcome per record, in the request's order.
 */
export async function applyCatalogRecords(db: Db, orgId: string, records: CatalogRecord[]): Promise<Applied[]> {
  const cache = new ReferenceCache();
  const outcomes: Applied[] = [];
  for (const record of records) outcomes.push(await db.transaction((trx) => applyCatalogRecord(trx, orgId, record, cache)));
  return outcomes;
}

/** Removes an import that could not be queued: the caller is told nothing was stored and sends it again. */
export async function deleteCatalogImport(db: Db, importId: string): Promise<void> {
  await db("catalog_imports").where({ id: importId }).delete();
}

/** The organisation's imports not yet ended (stored and waiting, or being applied). */
export async function pendingCatalogImports(db: Db, orgId: string): Promise<number> {
  const row = await db("catalog_imports").where({ org_id: orgId }).whereIn("status", ["received", "applying"]).count("* as n").first();
  return Number(row?.n ?? 0);
}
