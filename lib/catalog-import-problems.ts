/**
 * How much of a bulk import is read and how much of what it refused is kept. A hostile file
 * (32 MiB of 2-byte lines is 16 million lines) must not become 16 million rows: the first
 * IMPORT_PROBLEMS_KEPT refused lines are kept with their line, code and reason, and the rest are
 * only counted per code, which is what the API and the console show as "and N more".
 */
import type { RecordProblem } from "./catalog-records";

/**
 * Records one import may carry. The largest realistic catalog measured (bench/results-catalog-import.md)
 * is 15,281 records in 4.6 MB, a big company's; 100,000 is six and a half of those, about what the
 * 32 MiB byte limit holds of real records (~300 bytes each), and applies in about two minutes at
 * the measured 750–1,000 records/s. A sync larger than that sends several imports.
 */
export const IMPORT_MAX_RECORDS = 100_000;

/** Refused lines kept with their line and reason; one page of the problems API (limit 1,000) shows them all. */
export const IMPORT_PROBLEMS_KEPT = 1_000;

/** Why a line was refused: a record's own problem, or one only an import has. */
export type ImportProblemCode = RecordProblem["code"] | "TOO_MANY_RECORDS" | "RECORD_NOT_STORED";

export interface ImportLineProblem {
  line: number;
  code: ImportProblemCode;
  message: string;
}

/** Refused lines not kept, per code. */
export type ProblemCounts = Partial<Record<ImportProblemCode, number>>;

/** Collects refused lines: the first `keep` whole, the rest as counts per code. */
export class ProblemSink {
  readonly kept: ImportLineProblem[] = [];
  readonly omitted: ProblemCounts = {};

  constructor(private readonly keep = IMPORT_PROBLEMS_KEPT) {}

  add(problem: ImportLineProblem): void {
    if (this.kept.length < this.keep) this.kept.push(problem);
    else this.omitted[problem.code] = (this.omitted[problem.code] ?? 0) + 1;
  }

  /** Lines `from`..`to` (inclusive) all refused for one reason, without a loop over those not kept. */
  addRange(from: number, to: number, problem: Omit<ImportLineProblem, "line">): void {
    let line = from;
    for (; line <= to && this.kept.length < this.keep; line++) this.kept.push({ line, ...problem });
    if (line <= to) this.omitted[problem.code] = (this.omitted[problem.code] ?? 0) + (to - line + 1);
  }
}

/** The sum of two sets of counts. */
export function addCounts(a: ProblemCounts, b: ProblemCounts): ProblemCounts {
  const sum: ProblemCounts = { ...a };
  for (const [code, n] of Object.entries(b) as Array<[ImportProblemCode, number]>) sum[code] = (sum[code] ?? 0) + n;
  return sum;
}
