/**
 * XLSX through exceljs: each sheet becomes Markdown table sections headed by the sheet's name,
 * so chunks and citations name the sheet. The header row is repeated every ROWS_PER_SECTION
 * rows (the continuation headed "Sheet (rows 32–61)"), so a chunk of a long sheet still says
 * what its columns mean. A formula shows the value the spreadsheet program last computed (the
 * cached result; nothing is recalculated), a date shows as ISO 8601. Empty columns are left out,
 * so one stray cell in column XFD does not widen every row to 16 384 cells.
 *
 * Bounds: the zip is measured first as for DOCX/PPTX (ZIP_MAX_UNCOMPRESSED_BYTES,
 * ZIP_MAX_ENTRIES), exceljs reads the archive re-written from the measured entries only, the
 * non-empty cells are counted (XLSX_MAX_CELLS) and the text capped (EXTRACT_MAX_TEXT_CHARS);
 * the thread's heap limit holds the rest.
 */
import ExcelJS from "exceljs";
import { coreTitle } from "./core-properties";
import {
  buildDocument,
  DEFAULT_EXTRACTION_LIMITS,
  DEFAULT_XLSX_MAX_CELLS,
  type ExtractedDocument,
  type ExtractedSection,
  ExtractionError,
  type ExtractionLimits,
  textTooLarge,
} from "./types";
import { openZip } from "./zip";

const CORRUPT = "The spreadsheet is corrupt or could not be read";

/** Data rows per section: a section of this many short rows fits one chunk with its header. */
export const ROWS_PER_SECTION = 30;

/** Longest cell text kept: a cell holding a whole essay is cut rather than repeated across the table. */
const MAX_CELL_CHARS = 2_000;

/** `2026-01-10` for a date at midnight (how date-only cells are stored), else `2026-01-10T08:30:00`. Excel dates carry no zone: read as UTC. */
export function isoDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return "";
  const iso = date.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19);
}

/** A cell's shown value as one line of text: cached formula results, rich text joined, hyperlinks by their text. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return isoDate(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if ("richText" in value) return value.richText.map((run) => run.text).join("");
  if ("error" in value) return value.error;
  if ("formula" in value || "sharedFormula" in value) return value.result === undefined ? "" : cellText(value.result as ExcelJS.CellValue);
  if ("hyperlink" in value) return typeof value.text === "string" ? value.text : cellText(value.text as ExcelJS.CellValue);
  return "";
}

/** Table cells stay on one line, and a `|` inside one must not end it. */
export const tableCell = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim().replaceAll("|", "\\|");
  return line.length > MAX_CELL_CHARS ? `${line.slice(0, MAX_CELL_CHARS - 1)}…` : line;
};

const tableRow = (cells: string[]) => `| ${cells.join(" | ")} |`;

interface SheetRows {
  name: string;
  /** Spreadsheet row number → its cells by column number (non-empty only). */
  rows: Array<{ number: number; cells: Map<number, string> }>;
  columns: number[];
}

/** One sheet as sections: the first non-empty row is the header, repeated before every ROWS_PER_SECTION data rows. */
export function sheetSections({ name, rows, columns }: SheetRows): ExtractedSection[] {
  const [header, ...data] = rows;
  if (!header) return [];
  const headerCells = columns.map((column, index) => header.cells.get(column) ?? `Column ${index + 1}`);
  const lines = [tableRow(headerCells), tableRow(columns.map(() => "---"))];
  if (data.length === 0) return [{ heading: name, text: lines.join("\n"), pageStart: null, pageEnd: null }];
  const sections: ExtractedSection[] = [];
  for (let from = 0; from < data.length; from += ROWS_PER_SECTION) {
    const slice = data.slice(from, from + ROWS_PER_SECTION);
    const body = slice.map((row) => tableRow(columns.map((column) => row.cells.get(column) ?? "")));
    const heading = from === 0 ? name : `${name} (rows ${slice[0]!.number}–${slice.at(-1)!.number})`;
    sections.push({ heading, text: [...lines, ...body].join("\n"), pageStart: null, pageEnd: null });
  }
  return sections;
}

export async function extractXlsx(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  const zip = await openZip(bytes, limits, CORRUPT);
  const measured = await zip.measuredArchive();
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(measured as unknown as ExcelJS.Buffer);
  } catch (error) {
    throw new ExtractionError(CORRUPT, error);
  }
  const maxCells = limits.xlsxMaxCells ?? DEFAULT_XLSX_MAX_CELLS;
  let cells = 0;
  let length = 0;
  const sections: ExtractedSection[] = [];
  workbook.eachSheet((sheet) => {
    const rows: SheetRows["rows"] = [];
    const used = new Set<number>();
    sheet.eachRow({ includeEmpty: false }, (row, number) => {
      const values = new Map<number, string>();
      row.eachCell({ includeEmpty: false }, (cell, column) => {
        // A merged range's other cells repeat its first cell's value; the first one says it once.
        if (cell.type === ExcelJS.ValueType.Merge) return;
        const text = tableCell(cellText(cell.value));
        if (text === "") return;
        if (++cells > maxCells) {
          throw new ExtractionError(
            `The workbook holds more than ${maxCells.toLocaleString("en")} filled cells (XLSX_MAX_CELLS); split it into smaller workbooks or ask an operator to raise the limit`,
            undefined,
            "EXTRACTION_TOO_LARGE",
          );
        }
        length += text.length + 3;
        if (length > limits.maxTextChars) throw textTooLarge(limits);
        values.set(column, text);
        used.add(column);
      });
      if (values.size > 0) rows.push({ number, cells: values });
    });
    const columns = [...used].sort((a, b) => a - b);
    sections.push(...sheetSections({ name: sheet.name, rows, columns }));
  });
  return buildDocument("xlsx", sections, null, "The workbook's sheets are all empty", limits, await coreTitle(zip));
}
