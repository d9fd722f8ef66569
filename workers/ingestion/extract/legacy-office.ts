/**
 * Word 97–2003 (.doc) and Excel 97–2003 (.xls): the binary OLE2 formats, read by Debian's
 * converters rather than by a parser of ours — antiword for Word (catdoc when antiword refuses an
 * older Word file), catdoc's xls2csv for Excel — each run as a bounded child process of the
 * extraction thread (bounded-process.ts: wall clock, address space, CPU time, output cap), so a
 * file built to make a converter spin or balloon ends within its bound with a code. A server
 * without the converters still reads every other format; these files then fail
 * CONVERTER_UNAVAILABLE, saying what to install.
 */
import { parseCsv } from "./csv";
import { resolveProgram, runBounded } from "./bounded-process";
import { sheetSections, tableCell } from "./xlsx";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, ExtractionError, type ExtractionLimits } from "./types";

/** Wall-clock limit of one converter run: antiword and xls2csv read a 5 MB file in well under a second. */
export const CONVERTER_TIMEOUT_MS = 20_000;

/** Address-space limit of one converter run: both hold the whole OLE2 file and its text. */
export const CONVERTER_MEMORY_MB = 256;

const INSTALL_HINT = "an operator can install it (Debian: apt-get install antiword catdoc)";

function unavailable(program: string): ExtractionError {
  return new ExtractionError(
    `Reading this legacy Office file needs ${program}, which is not installed on this server; ${INSTALL_HINT}, or save the file as DOCX/XLSX and upload that`,
    undefined,
    "CONVERTER_UNAVAILABLE",
  );
}

const timedOut = (ms: number) =>
  new ExtractionError(
    `Converting the legacy Office file took longer than ${Math.max(1, Math.round(ms / 1000))} s and was stopped; the file may be damaged: save it as DOCX/XLSX and upload that`,
    undefined,
    "EXTRACTION_TIMEOUT",
  );

/**
 * Runs `program` (on PATH) on the file; its standard output as UTF-8, or null when it refused the
 * file. catdoc's programs open a path, not standard input, and Node's stdin is a socket, which
 * `/dev/stdin` cannot open: those (`path: true`) read the file through `cat` and a real pipe.
 */
async function convert(program: string, args: string[], bytes: Buffer, limits: ExtractionLimits, options: { path?: boolean } = {}): Promise<string | null> {
  const found = resolveProgram(program);
  if (!found) throw unavailable(program);
  const shell = options.path ? resolveProgram("sh") : null;
  const [path, argv] = shell ? [shell, ["-c", 'cat | exec "$0" "$@" /dev/stdin', found, ...args]] : [found, args];
  // UTF-8 takes up to four bytes a character; past that the text is over EXTRACT_MAX_TEXT_CHARS anyway.
  const maxOutput = limits.maxTextChars * 4 + 1024;
  const timeoutMs = limits.converterTimeoutMs ?? CONVERTER_TIMEOUT_MS;
  const run = await runBounded(
    path,
    argv,
    bytes,
    CONVERTER_MEMORY_MB,
    timeoutMs,
    maxOutput,
    "The legacy Office file converts to more text than a document may hold",
  );
  if (run.timedOut) throw timedOut(timeoutMs);
  return run.code === 0 ? run.stdout.toString("utf8") : null;
}

/** Word 97–2003. antiword keeps paragraphs (`-w 0`: no re-wrapping); catdoc also reads Word 6/95, which antiword refuses. */
export async function extractDoc(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  const text =
    (await convert("antiword", ["-m", "UTF-8.txt", "-w", "0", "-"], bytes, limits)) ??
    (await convert("catdoc", ["-d", "utf-8", "-w"], bytes, limits, { path: true }));
  if (text === null) throw new ExtractionError("The Word document is corrupt or not a Word 97–2003 file; save it as DOCX and upload that");
  return buildDocument("doc", [{ heading: null, text, pageStart: null, pageEnd: null }], null, undefined, limits);
}

/**
 * Excel 97–2003. xls2csv writes every sheet as CSV (UTF-8, values as shown), sheets separated by
 * a form feed; each sheet becomes the same Markdown table sections as an XLSX sheet (xlsx.ts),
 * named by its position since xls2csv does not print sheet names.
 */
export async function extractXls(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  const text = await convert("xls2csv", ["-d", "utf-8", "-q", "1"], bytes, limits, { path: true });
  if (text === null) throw new ExtractionError("The spreadsheet is corrupt or not an Excel 97–2003 file; save it as XLSX and upload that");
  const sheets = text.split("\f").filter((sheet) => sheet.trim() !== "");
  const sections = sheets.flatMap((sheet, index) => {
    const rows = parseCsv(sheet, ",").map((cells) => cells.map(tableCell));
    const width = Math.max(0, ...rows.map((cells) => cells.length));
    const columns = Array.from({ length: width }, (_, column) => column).filter((column) => rows.some((cells) => (cells[column] ?? "") !== ""));
    return sheetSections({
      name: sheets.length > 1 ? `Sheet ${index + 1}` : "Sheet",
      rows: rows.map((cells, row) => ({
        number: row + 1,
        cells: new Map(columns.filter((column) => (cells[column] ?? "") !== "").map((column) => [column, cells[column]!] as const)),
      })),
      columns,
    });
  });
  return buildDocument("xls", sections, null, "The spreadsheet has no text, or is not an Excel 97–2003 file; save it as XLSX and upload that", limits);
}
