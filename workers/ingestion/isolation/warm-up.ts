/**
 * What a fresh extraction thread does before the first upload reaches it: reads and chunks a
 * small built-in PDF a few times. A thread loads pdf.js and the tokenizer on first use, and
 * both run several times slower until V8 has optimised them (measured: a 10-page PDF took
 * ~100 ms after one warm-up document, ~25 ms after ten), so without this the first documents
 * after every worker start pay for it. The PDF is built here, compressed like the PDFs office
 * tools write, so the same code paths (inflate, a standard font, text runs) get warm.
 */
import { deflateSync } from "node:zlib";
import { chunkDocument, type ChunkingOptions } from "../chunking";
import { extractDocument } from "../extract";
import { DEFAULT_EXTRACTION_LIMITS } from "../extract/types";

const WORDS = "locker badge shift schedule refund receipt safety training manager approval warehouse inventory".split(" ");

/** One page's content stream: a heading set large, then body lines. */
function pageContent(page: number): string {
  const lines = [`BT /F1 18 Tf 72 740 Td (Section ${page}) Tj ET`];
  for (let line = 0; line < 40; line++) {
    const text = Array.from({ length: 12 }, (_, i) => WORDS[(page * 41 + line * 7 + i * 3) % WORDS.length]).join(" ");
    lines.push(`BT /F1 10 Tf 72 ${710 - line * 14} Td (${text}${line % 8 === 7 ? "." : ""}) Tj ET`);
  }
  return lines.join("\n");
}

/** A valid PDF of `pages` pages of text in Helvetica, with a title and a cross-reference table. */
export function warmUpPdf(pages: number): Buffer {
  const fontId = 3 + 2 * pages;
  const infoId = fontId + 1;
  const objects: Buffer[] = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from(`<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${3 + 2 * i} 0 R`).join(" ")}] /Count ${pages} >>`),
  ];
  for (let page = 1; page <= pages; page++) {
    const id = 1 + 2 * page;
    objects.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${id + 1} 0 R >>`));
    const stream = deflateSync(pageContent(page));
    objects.push(Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from("\nendstream")]));
  }
  objects.push(Buffer.from("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"));
  objects.push(Buffer.from("<< /Title (Warm-up) >>"));

  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    const wrapped = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
    offsets.push(offset);
    offset += wrapped.length;
    parts.push(wrapped);
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((at) => `${String(at).padStart(10, "0")} 00000 n \n`)].join("");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${infoId} 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** Times the sample is read and chunked: ten was where a 10-page PDF stopped getting faster. */
const ROUNDS = 10;

/** The operator's limits are for uploads, not for this sample: it is read under the defaults, its chunks uncounted. */
export async function warmUp(options: ChunkingOptions): Promise<void> {
  const pdf = warmUpPdf(1);
  const unlimited = { ...options, maxChunks: undefined };
  for (let round = 0; round < ROUNDS; round++) chunkDocument(await extractDocument(pdf, "pdf", DEFAULT_EXTRACTION_LIMITS), unlimited);
}
