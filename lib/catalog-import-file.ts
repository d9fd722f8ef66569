/**
 * A bulk import's file, split into the records the job applies and the lines it refuses at once.
 * NDJSON is one record per line (blank lines skipped, `\r\n` accepted); JSON is an array of
 * records or `{"records": [...]}`, whose "lines" are the records' places (1, 2, …).
 *
 * Records are put in the order that lets a file list them in any order: parents before children
 * (categories, skills, courses, modules, lessons, exercises, then people's records), every
 * upsert before any delete, and deletes children first. Records of one rank keep the file's order.
 */
import { CATALOG_RECORD_TYPES, type CatalogRecordType, type RecordProblem } from "./catalog-records";

export type ImportFormat = "ndjson" | "json";

/** A record may not be longer than this (a lesson of a million characters fits). */
export const IMPORT_LINE_MAX_BYTES = 4 * 1024 * 1024;

export interface ImportLine {
  line: number;
  text: string;
}

export interface ImportLineProblem extends RecordProblem {
  line: number;
}

export type SplitImport = { ok: true; lines: ImportLine[]; problems: ImportLineProblem[] } | { ok: false; message: string };

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

function rankOf(parsed: unknown): number {
  const { type, op } = (parsed ?? {}) as { type?: unknown; op?: unknown };
  // Anything the record parser will refuse goes first: its problem is reported whatever the rest does.
  if (typeof type !== "string" || !(CATALOG_RECORD_TYPES as string[]).includes(type)) return -1;
  const rank = UPSERT_RANK[type as CatalogRecordType];
  return op === "delete" ? DELETE_BASE + (MAX_RANK - rank) : rank;
}

interface Ranked extends ImportLine {
  rank: number;
}

function ordered(lines: Ranked[]): ImportLine[] {
  // Array.prototype.sort is stable: a rank keeps the file's order.
  return lines.sort((a, b) => a.rank - b.rank).map(({ line, text }) => ({ line, text }));
}

function splitNdjson(body: Buffer): SplitImport {
  const lines: Ranked[] = [];
  const problems: ImportLineProblem[] = [];
  let start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  for (let number = 1; start <= body.length; number++) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    const bytes = end - start;
    if (bytes > IMPORT_LINE_MAX_BYTES) {
      problems.push({
        line: number,
        code: "RECORD_TOO_LARGE",
        message: `the line is ${bytes} bytes; a record may be at most ${IMPORT_LINE_MAX_BYTES} bytes (4 MiB)`,
      });
    } else {
      const text = body.toString("utf8", start, end).replace(/\r$/, "");
      if (text.trim() !== "") {
        try {
          lines.push({ line: number, text, rank: rankOf(JSON.parse(text)) });
        } catch {
          problems.push({ line: number, code: "INVALID_JSON", message: "the line is not a JSON object (one record per line)" });
        }
      }
    }
    start = end + 1;
  }
  return { ok: true, lines: ordered(lines), problems };
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
  const problems: ImportLineProblem[] = [];
  records.forEach((record: unknown, index) => {
    const text = JSON.stringify(record);
    if (Buffer.byteLength(text) > IMPORT_LINE_MAX_BYTES) {
      problems.push({ line: index + 1, code: "RECORD_TOO_LARGE", message: `the record is larger than ${IMPORT_LINE_MAX_BYTES} bytes (4 MiB)` });
    } else {
      lines.push({ line: index + 1, text, rank: rankOf(record) });
    }
  });
  return { ok: true, lines: ordered(lines), problems };
}

export function splitImportBody(body: Buffer, format: ImportFormat): SplitImport {
  return format === "ndjson" ? splitNdjson(body) : splitJson(body);
}
