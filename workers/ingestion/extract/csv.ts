/**
 * CSV: one section whose lines are the rows written out as "column: value; column: value", so
 * every chunk of a long table still says what each value means without the header row in view.
 * That repetition multiplies the text by the column names' length, so names repeated per cell are
 * shortened and the output stops at the document's text limit.
 */
import { decodeUtf8 } from "./text";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, ExtractionError, type ExtractionLimits, textTooLarge } from "./types";

/** Longest column name repeated in front of every value; the `Columns:` line keeps full names. */
export const MAX_COLUMN_LABEL_CHARS = 60;

/**
 * RFC 4180 parsing: quoted fields may hold the delimiter, doubled quotes and newlines. One pass,
 * fields cut by index, so no character is looked at twice whatever the quoting.
 */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let fieldStart = 0;
  /** Whether the unquoted field so far holds anything but whitespace (a quote then is literal). */
  let fieldHasContent = false;
  let i = 0;
  const endField = (end: number) => {
    row.push(field + text.slice(fieldStart, end));
    field = "";
    fieldHasContent = false;
  };
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"' && !fieldHasContent) {
      // A quoted field: read to its closing quote, unescaping doubled quotes.
      let value = "";
      let from = ++i;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote === -1) throw new ExtractionError("The CSV file has an unterminated quoted field");
        if (text[quote + 1] === '"') {
          value += text.slice(from, quote + 1);
          i = from = quote + 2;
          continue;
        }
        value += text.slice(from, quote);
        i = quote + 1;
        break;
      }
      // Whatever follows the closing quote up to the delimiter belongs to the field, as before.
      field = value;
      fieldStart = i;
      fieldHasContent = true;
      continue;
    }
    if (char === delimiter) {
      endField(i);
      fieldStart = ++i;
    } else if (char === "\n" || char === "\r") {
      endField(i);
      rows.push(row);
      row = [];
      i += char === "\r" && text[i + 1] === "\n" ? 2 : 1;
      fieldStart = i;
    } else {
      if (!fieldHasContent && char.trim() !== "") fieldHasContent = true;
      i++;
    }
  }
  const tail = field + text.slice(fieldStart);
  if (tail !== "" || row.length > 0) rows.push([...row, tail]);
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
