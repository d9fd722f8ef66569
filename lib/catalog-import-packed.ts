/**
 * A split import (catalog-import-file.ts) as it crosses from the splitting thread to the worker's
 * event loop: every record's text in one string and their places in one Int32Array. Structured
 * cloning 100,000 small objects cost ~75 ms of the receiving loop (measured); one string and one
 * typed array cost ~20 ms for 29 MB, and the records are cut out a batch at a time as they are stored.
 */
import type { ImportLineProblem, ProblemCounts } from "./catalog-import-problems";
import type { ImportLine, SplitImport } from "./catalog-import-file";

export type PackedSplit =
  | { ok: true; text: string; places: Int32Array; problems: ImportLineProblem[]; omitted: ProblemCounts; total: number }
  | { ok: false; message: string };

/** Packs a split: `places` holds, per record in order, its line and the end of its text in `text`. */
export function packSplit(split: SplitImport): PackedSplit {
  if (!split.ok) return split;
  const places = new Int32Array(split.lines.length * 2);
  let end = 0;
  split.lines.forEach((line, index) => {
    end += line.text.length;
    places[2 * index] = line.line;
    places[2 * index + 1] = end;
  });
  return { ok: true, text: split.lines.map((line) => line.text).join(""), places, problems: split.problems, omitted: split.omitted, total: split.total };
}

/** The records of a packed split, read a slice at a time. */
export class PackedLines {
  readonly count: number;

  constructor(
    private readonly text: string,
    private readonly places: Int32Array,
  ) {
    this.count = places.length / 2;
  }

  /** Records `from` (inclusive) to `to` (exclusive), in order. */
  slice(from: number, to: number): ImportLine[] {
    const lines: ImportLine[] = [];
    for (let i = from; i < Math.min(to, this.count); i++) {
      const start = i === 0 ? 0 : this.places[2 * i - 1]!;
      lines.push({ line: this.places[2 * i]!, text: this.text.slice(start, this.places[2 * i + 1]!) });
    }
    return lines;
  }
}
