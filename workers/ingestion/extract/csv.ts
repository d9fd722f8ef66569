/**
 * CSV: one section whose lines are the rows written out as "column: value; column: value", so
 * every chunk of a long table still says what each value means without the header row in view.
 */
import { decodeUtf8 } from "./text";
import { buildDocument, type ExtractedDocument, ExtractionError } from "./types";

/** RFC 4180 parsing: quoted fields may hold the delimiter, doubled quotes and newlines. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field.trim() === "") {
      quoted = true;
      field = "";
    } else if (char === delimiter) {
      row.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += char;
  }
  if (quoted) throw new ExtractionError("The CSV file has an unterminated quoted field");
  if (field !== "" || row.length > 0) rows.push([...row, field]);
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ""));
}

/** Spreadsheets export with commas, semicolons (European locales) or tabs; the header line tells. */
export function sniffDelimiter(text: string): string {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  const outsideQuotes = firstLine.replace(/"[^"]*"/g, "");
  let best = ",";
  let bestCount = 0;
  for (const candidate of [",", ";", "\t", "|"]) {
    const count = outsideQuotes.split(candidate).length - 1;
    if (count > bestCount) [best, bestCount] = [candidate, count];
  }
  return best;
}

export function extractCsv(bytes: Buffer): ExtractedDocument {
  const text = decodeUtf8(bytes);
  const [header = [], ...rows] = parseCsv(text, sniffDelimiter(text));
  const columns = header.map((name, index) => name.trim() || `column ${index + 1}`);
  const lines = rows.map((cells) =>
    cells
      .map((cell, index) => [columns[index] ?? `column ${index + 1}`, cell.trim()] as const)
      .filter(([, value]) => value !== "")
      .map(([column, value]) => `${column}: ${value.replace(/\s+/g, " ")}`)
      .join("; "),
  );
  const body = [`Columns: ${columns.join(", ")}`, "", ...lines].join("\n");
  return buildDocument("csv", [{ heading: null, text: columns.length ? body : "", pageStart: null, pageEnd: null }]);
}
