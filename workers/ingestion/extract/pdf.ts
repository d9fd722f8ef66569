/**
 * PDF through unpdf (pdf.js): one section per page so citations can name the page. A page's first
 * line becomes its heading only when it is short and set larger than the page's body text.
 */
import { extractTextItems, getDocumentProxy, type StructuredTextItem } from "unpdf";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, type ExtractedSection, ExtractionError, type ExtractionLimits } from "./types";

const SCANNED_MESSAGE = "The document contains no extractable text (scanned PDFs would need OCR, which is not supported)";

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
  return (
    line.text.length <= 100 &&
    words <= 14 &&
    /\p{L}/u.test(line.text) &&
    !/[.,;!?]$/.test(line.text) &&
    line.fontSize >= bodySize * 1.15
  );
}

export function pageSection(items: StructuredTextItem[], pageNumber: number): ExtractedSection {
  const lines = toLines(items);
  const [first, ...rest] = lines;
  const headed = first !== undefined && rest.length > 0 && looksLikeHeading(first, bodyFontSize(rest));
  return {
    heading: headed ? first.text : null,
    text: linesToText(headed ? rest : lines),
    pageStart: pageNumber,
    pageEnd: pageNumber,
  };
}

export async function extractPdf(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  let pages: StructuredTextItem[][];
  let pageCount: number;
  try {
    // pdf.js may take ownership of the array it is given; hand it a copy, and silence its console warnings.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      ({ items: pages, totalPages: pageCount } = await extractTextItems(pdf));
    } finally {
      await pdf.destroy();
    }
  } catch (error) {
    throw new ExtractionError(describePdfFailure(error), error);
  }
  const sections = pages.map((items, index) => pageSection(items, index + 1));
  return buildDocument("pdf", sections, pageCount, SCANNED_MESSAGE, limits);
}

function describePdfFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "PasswordException") return "The PDF is password-protected; remove the password and upload it again";
  return "The PDF is corrupt or encrypted and could not be read";
}
