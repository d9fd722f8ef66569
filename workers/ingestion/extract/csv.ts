/**
 * CSV: one section whose lines are the rows written out as "column: value; column: value", so
 * every chunk of a long table still says what each value means without the header row in view.
 * That repetition multiplies the text by the column names' length, so names repeated per cell are
 * shortened and the output stops at the document's text limit.
 */
import { CsvError, parse } from "csv-parse/sync";
import { decodeUtf8 } from "./text";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, ExtractionError, type ExtractionLimits, textTooLarge } from "./types";

/** Longest column name repeated in front of every value; the `Columns:` line keeps full names. */
export const MAX_COLUMN_LABEL_CHARS = 60;

/**
 * RFC 4180 through csv-parse: quoted fields may hold the delimiter, doubled quotes and newlines;
 * a quote inside an unquoted field is kept as text (sloppy exports write `5" screen`), rows may
 * differ in length, and `\r\n`, `\n` or a lone `\r` end a row. Rows whose cells are all blank
 * are dropped. The text is already decoded (UTF-8 only, see decodeUtf8).
 */
export function parseCsv(text: string, delimiter: string): string[][] {
  let rows: string[][];
  try {
    rows = parse(text, { delimiter, ltrim: true, relax_quotes: true, relax_column_count: true, record_delimiter: ["\r\n", "\n", "\r"] });
  } catch (error) {
    if (error instanceof CsvError && error.code === "CSV_QUOTE_NOT_CLOSED") throw new ExtractionError("The CSV file has an unterminated quoted field", error);
    throw new ExtractionError("The CSV file could not be read", error);
  }
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ""));
}

/** Spreadsheets export with commas, semicolons (European locales) or tabs; the header line tells. */
export function sniffDelimiter(text: string): string {
  const lineEnd = text.search(/[\r\n]/);
  const firstLine = lineEnd === -1 ? text : text.slice(0, lineEnd);
  let best = ",";
  let bestCount = 0;
  for (const candidate of [",", ";", "\t", "|"]) {
    let count = 0;
    let quoted = false;
    for (const char of firstLine) {
      if (char === '"') quoted = !quoted;
      else if (char === candidate && !quoted) count++;
    }
    if (count > bestCount) [best, bestCount] = [candidate, count];
  }
  return best;
}

const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();
const shorten = (label: string) => (label.length > MAX_COLUMN_LABEL_CHARS ? `${label.slice(0, MAX_COLUMN_LABEL_CHARS - 1).trimEnd()}…` : label);

export function extractCsv(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): ExtractedDocument {
  const text = decodeUtf8(bytes);
  const [header = [], ...rows] = parseCsv(text, sniffDelimiter(text));
  const columns = header.map((name, index) => oneLine(name) || `column ${index + 1}`);
  const labels = columns.map(shorten);
  const lines = [`Columns: ${columns.join(", ")}`, ""];
  let length = lines[0]!.length;
  for (const cells of rows) {
    const parts: string[] = [];
    for (const [index, cell] of cells.entries()) {
      const value = oneLine(cell);
      if (value !== "") parts.push(`${labels[index] ?? `column ${index + 1}`}: ${value}`);
    }
    const line = parts.join("; ");
    length += line.length + 1;
    if (length > limits.maxTextChars) throw textTooLarge(limits);
    lines.push(line);
  }
  return buildDocument("csv", [{ heading: null, text: columns.length ? lines.join("\n") : "", pageStart: null, pageEnd: null }], null, undefined, limits);
}
