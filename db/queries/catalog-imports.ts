/**
 * Bulk catalog imports: the file as received, its records in the order they are applied, the
 * cursor and counts of the job that applies them, and the records it refused (see the migration
 * 20261203000010_catalog_imports). The cursor moves in the same transaction as the records it
 * passes, so a job killed mid-batch applies that batch again from the start — and, records
 * being idempotent, with the same outcome.
 */
import type { Knex } from "knex";
import type { ImportFormat } from "../../lib/catalog-import-file";
import type { PackedLines } from "../../lib/catalog-import-packed";
import {
  addCounts,
  IMPORT_PROBLEMS_KEPT,
  ProblemSink,
  type ImportLineProblem,
  type ImportProblemCode,
  type ProblemCounts,
} from "../../lib/catalog-import-problems";
import { parseCatalogRecord } from "../../lib/catalog-records";
import type { Db } from "../knex";
import { applyCatalogRecord, ReferenceCache, type Applied } from "./catalog-writes";
import { addOperationCounts, completeOperation, type OperationRecord, parseOperation } from "./operations";

/**
 * The import's phase, as the API and the console name it: `receiving` (the slot is taken and the
 * body is being read, catalog-import-slots.ts), `received` (stored, to be split), `applying`,
 * `completed`, `failed`. The record itself has the shared status of long operations and the
 * phase as its step (migration 20261205020100_catalog_import_records).
 */
export type ImportPhase = "receiving" | "received" | "applying" | "completed" | "failed";

/** The import's steps, in order: `receive` happens before its job (the server reads the body); the job runs the others. */
export const IMPORT_JOB_STEPS = ["split", "apply"] as const;

export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
}

export interface CatalogImportRow extends OperationRecord, ImportCounts {
  org_id: string;
  integration_key_id: string | null;
  key_name: string | null;
  format: ImportFormat;
  phase: ImportPhase;
  byte_size: number;
  total: number | null;
  next_seq: number;
  /** Refused lines past the first IMPORT_PROBLEMS_KEPT, per code. */
  problems_omitted: ProblemCounts;
}

const COUNT_KINDS = ["created", "updated", "unchanged", "deleted", "failed"] as const;

function phaseOf(status: string, step: string | null): ImportPhase {
  if (status === "completed" || status === "failed") return status;
  if (step === "receive") return "receiving";
  if (step === "apply") return "applying";
  return "received";
}

export function rowOf(raw: Record<string, unknown>): CatalogImportRow {
  const record = parseOperation<CatalogImportRow>(raw)!;
  const counts = Object.fromEntries(COUNT_KINDS.map((kind) => [kind, record.counts[kind] ?? 0])) as unknown as ImportCounts;
  return { ...record, ...counts, byte_size: Number(raw.byte_size), phase: phaseOf(record.status, record.step) };
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

/**
 * The file as received (only while the import is `received`), in its parts of up to 1 MiB, read
 * one part per query: the driver decodes each part's hex on the event loop, so a 32 MiB file is
 * 32 short steps rather than one long one (and the parts are never joined here).
 */
export async function importBodyParts(db: Db, importId: string): Promise<Buffer[]> {
  const numbers: number[] = await db("catalog_import_parts").where({ import_id: importId }).orderBy("part").pluck("part");
  const parts: Buffer[] = [];
  for (const part of numbers) {
    const row = await db("catalog_import_parts").where({ import_id: importId, part }).first("bytes");
    if (row) parts.push(row.bytes as Buffer);
  }
  return parts;
}

const LINE_INSERT_BATCH = 500;

/** What the split left to store: the records in order, the lines refused (the first ones) and the counts of the rest. */
export interface SplitToStore {
  lines: PackedLines;
  problems: ImportLineProblem[];
  omitted: ProblemCounts;
  total: number;
}

/**
 * Replaces the received file by its records and the lines refused while splitting it, and starts
 * applying: one transaction, done once (a redelivered job finds the import `applying`). Records
 * are cut from the packed split a batch at a time, so no step holds the event loop long.
 */
export async function storeImportLines(db: Db, importId: string, split: SplitToStore): Promise<void> {
  await db.transaction(async (trx) => {
    const current = await trx("catalog_imports").where({ id: importId }).forUpdate().first("status", "step");
    if (current?.step !== "split" || current.status === "completed" || current.status === "failed") return;
    for (let i = 0; i < split.lines.count; i += LINE_INSERT_BATCH) {
      await trx("catalog_import_lines").insert(
        split.lines.slice(i, i + LINE_INSERT_BATCH).map((line, offset) => ({ import_id: importId, seq: i + offset, line: line.line, text: line.text })),
      );
    }
    await insertProblems(trx, importId, split.problems.slice(0, IMPORT_PROBLEMS_KEPT));
    const omitted = Object.values(split.omitted).reduce((sum, n) => sum + n, 0);
    await trx("catalog_import_parts").where({ import_id: importId }).delete();
    await trx("catalog_imports")
      .where({ id: importId })
      .update({ status: "running", step: "apply", total: split.total, problems_omitted: JSON.stringify(split.omitted), updated_at: trx.fn.now() });
    await addOperationCounts(trx, "catalog_imports", importId, { failed: split.problems.length + omitted });
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

/** How many problems the import keeps already (at most IMPORT_PROBLEMS_KEPT: an index-only count). */
async function problemsKept(trx: Knex.Transaction, importId: string): Promise<number> {
  const row = await trx("catalog_import_problems").where({ import_id: importId }).count("* as n").first();
  return Number(row?.n ?? 0);
}

/** A record a database error refused that no rule foresaw: the job logs the error; the import keeps going. */
export interface UnexpectedRecordError {
  line: number;
  error: unknown;
}

export interface BatchOutcome {
  done: boolean;
  import: CatalogImportRow;
  unexpected: UnexpectedRecordError[];
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
    if (lines.length === 0) return { done: true, import: current, unexpected: [] };
    const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 };
    const problems = new ProblemSink(Math.max(0, IMPORT_PROBLEMS_KEPT - (await problemsKept(trx, importId))));
    const unexpected: UnexpectedRecordError[] = [];
    const cache = new ReferenceCache();
    for (const { line, text } of lines) {
      const applied = await applyLine(trx, current.org_id, text, cache).catch((error: unknown) => refusedByDatabase(error, line, unexpected));
      if (applied.ok) counts[applied.result]++;
      else {
        counts.failed++;
        problems.add({ line, ...applied.problem });
      }
    }
    await insertProblems(trx, importId, problems.kept);
    await addOperationCounts(trx, "catalog_imports", importId, { ...counts });
    const [row] = await trx("catalog_imports")
      .where({ id: importId })
      .update({ next_seq: lines.at(-1)!.seq + 1, problems_omitted: JSON.stringify(addCounts(current.problems_omitted, problems.omitted)) })
      .returning("*");
    return { done: false, import: rowOf(row), unexpected };
  });
}

/** A record's outcome in an import: applied, or refused for a record's reason or one only an import has. */
type LineOutcome = Applied | { ok: false; problem: { code: ImportProblemCode; message: string } };

function applyLine(trx: Knex.Transaction, orgId: string, text: string, cache: ReferenceCache): Promise<LineOutcome> {
  // The split (in its thread) kept only valid records of bounded depth and size: this parse is short.
  const parsed = parseCatalogRecord(JSON.parse(text));
  if (!parsed.ok) return Promise.resolve(parsed);
  return applyCatalogRecord(trx, orgId, parsed.record, cache);
}

/**
 * SQLSTATE classes that say nothing about the record: the connection, a transaction already
 * aborted, a deadlock or serialization failure, resources, a lock, an operator or the server
 * itself. The batch is rolled back and the job tries it again.
 */
const TRANSIENT_SQLSTATE_CLASSES = new Set(["08", "25", "40", "53", "55", "57", "58", "XX"]);

/**
 * A record the database refused for a reason no rule of catalog-writes.ts foresaw (a value it
 * cannot store, say): its savepoint is rolled back, so the record alone is refused with a fixed
 * message (never the SQL or its values) and the import goes on; the error goes to the log. An
 * error that is not the record's (no SQLSTATE, or a transient class) fails the batch, which the
 * job retries from the cursor.
 */
function refusedByDatabase(error: unknown, line: number, unexpected: UnexpectedRecordError[]): LineOutcome {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code) || TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) throw error;
  unexpected.push({ line, error });
  return {
    ok: false,
    problem: { code: "RECORD_NOT_STORED", message: `the database refused this record (SQLSTATE ${code}); the operator's log has the details` },
  };
}

/** Drops what an ended import no longer needs: its records and any part of the file (the counts and problems stay until it is pruned). */
export async function dropImportData(db: Db | Knex.Transaction, importId: string): Promise<void> {
  await db("catalog_import_lines").where({ import_id: importId }).delete();
  await db("catalog_import_parts").where({ import_id: importId }).delete();
}

/** Completes an import: its records are dropped and the record closed, in one transaction. */
export async function completeCatalogImport(db: Db, importId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await dropImportData(trx, importId);
    await completeOperation(trx, "catalog_imports", importId);
  });
}

/** The bytes an organisation's imports hold until they end (the file, then its records), counted in its storage. */
export async function heldImportBytes(db: Db, orgId: string): Promise<number> {
  const row = await db("catalog_imports")
    .where({ org_id: orgId })
    // Stored and waiting, or applying (a body being received has no bytes yet).
    .whereIn("status", ["queued", "running"])
    .sum<{ total: string | null }[]>({ total: "byte_size" })
    .first();
  return Number(row?.total ?? 0);
}
