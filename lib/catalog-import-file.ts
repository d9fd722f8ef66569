/**
 * A bulk import's file, split into the records the job applies and the lines it refuses at once.
 * NDJSON is one record per line (blank lines skipped, `\r\n` accepted); JSON is an array of
 * records or `{"records": [...]}`, whose "lines" are the records' places (1, 2, …).
 *
 * The split is the expensive part of an import (a 32 MiB file of 2-byte lines is 16 million
 * lines), so it runs in a worker thread (workers/ingestion/isolation) and is bounded:
 * - at most IMPORT_MAX_RECORDS records are read; every line past them is refused
 *   `TOO_MANY_RECORDS` by a count, without being parsed;
 * - a record is checked whole here (JSON, nesting depth, NUL characters, its fields), so what the
 *   job later parses on its event loop is a valid record of bounded depth and size;
 * - problems are kept for the first IMPORT_PROBLEMS_KEPT lines refused; the rest are counted per
 *   code (catalog-import-problems.ts).
 *
 * Records are put in the order that lets a file list them in any order: parents before children
 * (categories, skills, courses, modules, lessons, exercises, then people's records), every
 * upsert before any delete, and deletes children first. Records of one rank keep the file's order.
 */
import { nulPath } from "./nul-text";
import { parseCatalogRecord, type CatalogRecordType } from "./catalog-records";
import { IMPORT_MAX_RECORDS, ProblemSink, type ImportLineProblem, type ProblemCounts } from "./catalog-import-problems";

export type ImportFormat = "ndjson" | "json";

/** A record may not be longer than this (a lesson of a million characters fits). */
export const IMPORT_LINE_MAX_BYTES = 4 * 1024 * 1024;

/** A record nested deeper than this is refused: no record type needs more than a few levels (an exercise's answer). */
export const RECORD_MAX_DEPTH = 32;

export interface ImportLine {
  line: number;
  text: string;
}

export type SplitImport =
  | { ok: true; lines: ImportLine[]; problems: ImportLineProblem[]; omitted: ProblemCounts; total: number }
  | { ok: false; message: string };

/** Upserts in the order their references need. */
const UPSERT_RANK: Record<CatalogRecordType, number> = {
  skill_category: 0,
  skill: 1,
  course: 2,
  module: 3,
  lesson: 4,
  exercise: 5,
  enrollment: 6,
  skill_level: 6,
  exercise_attempt: 6,
  review_schedule: 6,
};
const DELETE_BASE = 10;
const MAX_RANK = Math.max(...Object.values(UPSERT_RANK));

function rankOf(record: { type: CatalogRecordType; op?: string }): number {
  const rank = UPSERT_RANK[record.type];
  return record.op === "delete" ? DELETE_BASE + (MAX_RANK - rank) : rank;
}

interface Ranked extends ImportLine {
  rank: number;
}

function ordered(lines: Ranked[]): ImportLine[] {
  // Array.prototype.sort is stable: a rank keeps the file's order.
  return lines.sort((a, b) => a.rank - b.rank).map(({ line, text }) => ({ line, text }));
}

/** True when `value` holds arrays or objects more than `limit` levels deep (walks no deeper than that). */
function tooDeep(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (limit === 0) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (tooDeep(item, limit - 1)) return true;
  return false;
}

/** Checks one parsed record; `text` is what is stored for it. */
function checkRecord(parsed: unknown, line: number, text: string, lines: Ranked[], problems: ProblemSink): void {
  if (tooDeep(parsed, RECORD_MAX_DEPTH)) {
    problems.add({ line, code: "INVALID_RECORD", message: `the record is nested more than ${RECORD_MAX_DEPTH} levels deep` });
    return;
  }
  const nul = nulPath(parsed);
  if (nul !== undefined) {
    problems.add({ line, code: "INVALID_RECORD", message: `${nul || "the record"}: must not contain NUL characters (\\u0000)` });
    return;
  }
  const record = parseCatalogRecord(parsed);
  if (!record.ok) problems.add({ line, ...record.problem });
  else lines.push({ line, text, rank: rankOf(record.record) });
}

const isBlank = (body: Buffer, start: number, end: number): boolean => {
  for (let i = start; i < end; i++) {
    const byte = body[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
};

function splitNdjson(body: Buffer): SplitImport {
  const lines: Ranked[] = [];
  const problems = new ProblemSink();
  let records = 0;
  let start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  for (let number = 1; start <= body.length; number++) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    const bytes = end - start;
    if (bytes > IMPORT_LINE_MAX_BYTES) {
      records++;
      problems.add({
        line: number,
        code: records > IMPORT_MAX_RECORDS ? "TOO_MANY_RECORDS" : "RECORD_TOO_LARGE",
        message: records > IMPORT_MAX_RECORDS ? tooManyMessage : `the line is ${bytes} bytes; a record may be at most ${IMPORT_LINE_MAX_BYTES} bytes (4 MiB)`,
      });
    } else if (!isBlank(body, start, end)) {
      records++;
      if (records > IMPORT_MAX_RECORDS) problems.add({ line: number, code: "TOO_MANY_RECORDS", message: tooManyMessage });
      else readLine(body.toString("utf8", start, end).replace(/\r$/, ""), number, lines, problems);
    }
    start = end + 1;
  }
  return { ok: true, lines: ordered(lines), problems: problems.kept, omitted: problems.omitted, total: records };
}

const tooManyMessage = `the import has more than ${IMPORT_MAX_RECORDS} records; send the rest in another import`;

function readLine(text: string, line: number, lines: Ranked[], problems: ProblemSink): void {
  // A record is an object: anything else is refused without the cost of a JSON.parse that throws.
  if (text.trimStart()[0] !== "{") {
    problems.add({ line, code: "INVALID_JSON", message: "the line is not a JSON object (one record per line)" });
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.add({ line, code: "INVALID_JSON", message: "the line is not a JSON object (one record per line)" });
    return;
  }
  checkRecord(parsed, line, text, lines, problems);
}

function splitJson(body: Buffer): SplitImport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8").replace(/^\uFEFF/, ""));
  } catch (error) {
    return { ok: false, message: `the body is not valid JSON (${(error as Error).message}); send an array of records, {"records": [...]}, or NDJSON` };
  }
  const records = Array.isArray(parsed) ? parsed : (parsed as { records?: unknown } | null)?.records;
  if (!Array.isArray(records)) return { ok: false, message: 'a JSON import is an array of records or {"records": [...]}' };
  const lines: Ranked[] = [];
  const problems = new ProblemSink();
  const read = Math.min(records.length, IMPORT_MAX_RECORDS);
  for (let index = 0; index < read; index++) {
    const record: unknown = records[index];
    const line = index + 1;
    if (tooDeep(record, RECORD_MAX_DEPTH)) {
      problems.add({ line, code: "INVALID_RECORD", message: `the record is nested more than ${RECORD_MAX_DEPTH} levels deep` });
      continue;
    }
    const text = JSON.stringify(record);
    if (Buffer.byteLength(text) > IMPORT_LINE_MAX_BYTES) {
      problems.add({ line, code: "RECORD_TOO_LARGE", message: `the record is larger than ${IMPORT_LINE_MAX_BYTES} bytes (4 MiB)` });
    } else {
      checkRecord(record, line, text, lines, problems);
    }
  }
  problems.addRange(read + 1, records.length, { code: "TOO_MANY_RECORDS", message: tooManyMessage });
  return { ok: true, lines: ordered(lines), problems: problems.kept, omitted: problems.omitted, total: records.length };
}

export function splitImportBody(body: Buffer, format: ImportFormat): SplitImport {
  return format === "ndjson" ? splitNdjson(body) : splitJson(body);
}
