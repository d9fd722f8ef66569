/**
 * PDF through unpdf (pdf.js): sections never span pages, so citations can name the page. A page's
 * first line becomes its heading only when it is short and set larger than the page's body text;
 * numbered headings set large ("2.10. Storing the MIME type") start a new section mid-page; a page
 * that opens without a heading carries the previous one, so every chunk names its nearest heading.
 * A running header repeated at the top of most pages is dropped from the text. The title is the
 * PDF's own metadata title, else that running header, else the first heading of page 1.
 */
import { extractTextItems, getDocumentProxy, type StructuredTextItem } from "unpdf";
import { OcrSession, ocrSections } from "./ocr";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, type ExtractedSection, ExtractionError, type ExtractionLimits } from "./types";

const SCANNED_MESSAGE = "The document contains no extractable text, and OCR found none on its pages either";

/** A page whose text layer has fewer letters than this is read by OCR: a scan with a stamped page number still counts as a scan. */
export const OCR_BELOW_LETTERS = 16;

const letters = (text: string) => text.match(/\p{L}/gu)?.length ?? 0;

interface Line {
  text: string;
  fontSize: number;
  /** Baseline height on the page (PDF space: larger is higher up). */
  y: number;
}

/** Rebuilds lines the way unpdf's extractText does (items joined, `hasEOL` breaks), keeping size and position. */
function toLines(items: StructuredTextItem[]): Line[] {
  const lines: Line[] = [];
  let text = "";
  let fontSize = 0;
  let y: number | null = null;
  const flush = () => {
    if (text.trim() !== "") lines.push({ text: text.replace(/[^\S\n]+/g, " ").trim(), fontSize, y: y ?? 0 });
    text = "";
    fontSize = 0;
    y = null;
  };
  for (const item of items) {
    text += item.str;
    if (item.str.trim() !== "") {
      fontSize = Math.max(fontSize, item.fontSize);
      y ??= item.y;
    }
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

/**
 * Lines as text, with a blank line where the vertical gap is clearly larger than line spacing
 * (a new paragraph) or the text jumps back up (a new column), so chunking can split at paragraphs.
 */
function linesToText(lines: Line[]): string {
  return lines
    .map((line, index) => {
      const previous = lines[index - 1];
      if (!previous) return line.text;
      const gap = previous.y - line.y;
      const size = Math.max(previous.fontSize, line.fontSize, 1);
      return gap > size * 1.6 || gap < -size ? `\n${line.text}` : line.text;
    })
    .join("\n");
}

/** The page's body size: the font size carrying the most characters. */
function bodyFontSize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const line of lines) {
    const size = Math.round(line.fontSize * 10) / 10;
    weight.set(size, (weight.get(size) ?? 0) + line.text.length);
  }
  return [...weight].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
}

function looksLikeHeading(line: Line, bodySize: number): boolean {
  const words = line.text.split(/\s+/).length;
  return line.text.length <= 100 && words <= 14 && /\p{L}/u.test(line.text) && !/[.,;!?]$/.test(line.text) && line.fontSize >= bodySize * 1.15;
}

const NUMBERED_HEADING = /^\d{1,3}(\.\d{1,3})*\.?\s+\p{L}/u;

/**
 * One page cut at its headings: the first line if it looks like one, and any later numbered
 * heading set larger than the body. Text before the page's first heading keeps `carried`.
 */
export function pageSections(lines: Line[], pageNumber: number, carried: string | null): ExtractedSection[] {
  const [first, ...rest] = lines;
  const bodySize = bodyFontSize(rest.length > 0 ? rest : lines);
  const headedFirst = first !== undefined && rest.length > 0 && looksLikeHeading(first, bodySize);
  const sections: ExtractedSection[] = [];
  let heading = headedFirst ? first.text : carried;
  let body: Line[] = [];
  const close = () => {
    if (body.length > 0 || sections.length === 0) sections.push({ heading, text: linesToText(body), pageStart: pageNumber, pageEnd: pageNumber });
    body = [];
  };
  for (const line of headedFirst ? rest : lines) {
    if (NUMBERED_HEADING.test(line.text) && looksLikeHeading(line, bodySize)) {
      close();
      heading = line.text;
    } else body.push(line);
  }
  close();
  return sections;
}

/** A first line repeated on most pages (the document's running header) is furniture, not text. */
function runningHeader(pages: Line[][]): string | null {
  if (pages.length < 3) return null;
  const counts = new Map<string, number>();
  for (const lines of pages) if (lines[0]) counts.set(lines[0].text, (counts.get(lines[0].text) ?? 0) + 1);
  const [text, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [null, 0];
  return text !== null && count >= pages.length / 2 ? text : null;
}

export async function extractPdf(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  let pages: StructuredTextItem[][];
  let pageCount: number;
  let metadataTitle: string | null = null;
  try {
    // pdf.js may take ownership of the array it is given; hand it a copy, and silence its console warnings.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      ({ items: pages, totalPages: pageCount } = await extractTextItems(pdf));
      metadataTitle = await pdf.getMetadata().then(
        ({ info }) => {
          const title = (info as { Title?: unknown } | undefined)?.Title;
          return typeof title === "string" && title.trim() !== "" ? title : null;
        },
        () => null,
      );
    } finally {
      await pdf.destroy();
    }
  } catch (error) {
    throw new ExtractionError(describePdfFailure(error), error);
  }
  const lines = pages.map(toLines);
  const header = runningHeader(lines);
  const scanned = await readScannedPages(bytes, lines, limits);
  const sections: ExtractedSection[] = [];
  let carried: string | null = null;
  for (const [index, pageLines] of lines.entries()) {
    const ocrText = scanned.get(index + 1);
    const kept = header !== null && pageLines[0]?.text === header ? pageLines.slice(1) : pageLines;
    const cut: ExtractedSection[] = ocrText !== undefined ? [ocrSections(ocrText, index + 1, carried)] : pageSections(kept, index + 1, carried);
    sections.push(...cut);
    carried = cut.at(-1)?.heading ?? carried;
  }
  // A running header is usually the document's name; else the first heading of page 1.
  const firstHeading = sections.find((section) => section.pageStart === 1 && section.heading)?.heading ?? null;
  return buildDocument("pdf", sections, pageCount, SCANNED_MESSAGE, limits, metadataTitle ?? header ?? firstHeading);
}

/**
 * OCR text of every page without a text layer (page number → text); empty when every page has
 * text, so a born-digital PDF never touches tesseract. Refuses more such pages than OCR_MAX_PAGES
 * before reading any. A page keeps its own text layer when OCR finds fewer letters in it.
 */
async function readScannedPages(bytes: Buffer, lines: Line[][], limits: ExtractionLimits): Promise<Map<number, string>> {
  const needing = lines.flatMap((pageLines, index) => (letters(pageLines.map((line) => line.text).join(" ")) < OCR_BELOW_LETTERS ? [index + 1] : []));
  const read = new Map<number, string>();
  if (needing.length === 0) return read;
  let session: OcrSession;
  try {
    session = await OcrSession.start(limits);
  } catch (error) {
    // Without OCR, a PDF whose other pages have text (blank separator pages, a scanned signature
    // page) is still read from its text layer, as before OCR existed; only an all-scanned one fails.
    if (error instanceof ExtractionError && error.code === "OCR_UNAVAILABLE" && needing.length < lines.length) return read;
    throw error;
  }
  if (needing.length > session.maxPages) {
    throw new ExtractionError(
      `The PDF has ${needing.length} pages without text, more than OCR reads in one document (${session.maxPages}, OCR_MAX_PAGES); split it into smaller documents or ask an operator to raise the limit`,
      undefined,
      "EXTRACTION_TOO_LARGE",
    );
  }
  for (const page of needing) {
    const text = await session.readPdfPage(bytes, page);
    const layer = lines[page - 1]!.map((line) => line.text).join("\n");
    if (letters(text) > letters(layer)) read.set(page, text);
  }
  return read;
}

function describePdfFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "PasswordException") return "The PDF is password-protected; remove the password and upload it again";
  return "The PDF is corrupt or encrypted and could not be read";
}
