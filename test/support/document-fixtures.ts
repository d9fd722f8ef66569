/**
 * Real documents for tests, written by the same kind of tools that write them in the wild
 * (pdfkit, docx, pptxgenjs, exceljs; poppler's pdftoppm rasterises pages into PNG/JPEG images),
 * so extraction is tested against genuine files rather than mocks. A body may hold several
 * paragraphs separated by blank lines. Files made by other programs altogether (ImageMagick,
 * Ghostscript, LibreOffice) are committed under test/fixtures/documents.
 */
import { spawnSync } from "node:child_process";
import ExcelJS from "exceljs";
import { Document, HeadingLevel, Packer, Paragraph } from "docx";
import PDFDocument from "pdfkit";
import PptxGenJS from "pptxgenjs";

export interface SectionSpec {
  heading: string;
  body: string;
}

export interface SlideSpec {
  title: string;
  body: string;
}

const paragraphsOf = (body: string) =>
  body
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);

/** One page per entry: the heading in 20pt, the body in 11pt (long bodies flow onto extra pages). */
export async function makePdf(pages: SectionSpec[]): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false, info: { Title: "Test document" } });
  const parts: Buffer[] = [];
  doc.on("data", (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on("end", () => resolve());
    doc.on("error", reject);
  });
  for (const page of pages) {
    doc.addPage();
    doc.fontSize(20).text(page.heading);
    doc.moveDown();
    for (const paragraph of paragraphsOf(page.body)) doc.fontSize(11).text(paragraph).moveDown();
  }
  doc.end();
  await finished;
  return Buffer.concat(parts);
}

/** Each section as a Heading 1 paragraph followed by its body paragraphs. */
export async function makeDocx(sections: SectionSpec[]): Promise<Buffer> {
  const children = sections.flatMap((section) => [
    new Paragraph({ text: section.heading, heading: HeadingLevel.HEADING_1 }),
    ...paragraphsOf(section.body).map((paragraph) => new Paragraph(paragraph)),
  ]);
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

/** One slide per entry, the title in a real title placeholder (`<p:ph type="title"/>`). */
export async function makePptx(slides: SlideSpec[]): Promise<Buffer> {
  const deck = new PptxGenJS();
  deck.defineSlideMaster({
    title: "TITLE_AND_BODY",
    objects: [{ placeholder: { options: { name: "title", type: "title", x: 0.5, y: 0.3, w: 9, h: 1 }, text: "" } }],
  });
  for (const spec of slides) {
    const slide = deck.addSlide({ masterName: "TITLE_AND_BODY" });
    slide.addText(spec.title, { placeholder: "title" });
    slide.addText(spec.body, { x: 0.5, y: 1.5, w: 9, h: 3.5, fontSize: 18 });
  }
  return (await deck.write({ outputType: "nodebuffer" })) as Buffer;
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A small web page: each section an `<h2>` and its body paragraphs, plus a script that must be ignored. */
export function makeHtml(sections: SectionSpec[], title = "Test page"): Buffer {
  const body = sections
    .map(
      (section) =>
        `<h2>${escapeHtml(section.heading)}</h2>\n${paragraphsOf(section.body)
          .map((p) => `<p>${escapeHtml(p)}</p>`)
          .join("\n")}`,
    )
    .join("\n");
  return Buffer.from(
    `<!doctype html>\n<html><head><title>${escapeHtml(title)}</title><style>p { color: red; }</style></head>\n` +
      `<body>\n${body}\n<script>console.log("not content")</script>\n</body></html>\n`,
  );
}

/** Each section as a `# heading` followed by its body. */
export function makeMarkdown(sections: SectionSpec[]): Buffer {
  return Buffer.from(sections.map((section) => `# ${section.heading}\n\n${section.body}\n`).join("\n"));
}

/** RFC 4180 CSV: fields with commas, quotes or newlines are quoted. */
export function makeCsv(header: string[], rows: string[][]): Buffer {
  const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  return Buffer.from(`${[header, ...rows].map((cells) => cells.map(field).join(",")).join("\r\n")}\r\n`);
}

export function makeTxt(text: string): Buffer {
  return Buffer.from(text);
}

/** Page 1 of a PDF as an image, rendered by poppler's pdftoppm (installed with OCR by scripts/ensure-deps.sh). */
export function rasterise(pdf: Buffer, type: "png" | "jpeg", dpi = 150): Buffer {
  const result = spawnSync("pdftoppm", ["-f", "1", "-l", "1", "-r", String(dpi), `-${type}`, "-singlefile", "-"], { input: pdf, maxBuffer: 64 << 20 });
  if (result.error || result.status !== 0 || result.stdout.length === 0) {
    throw new Error(
      `pdftoppm could not render the page (${result.error?.message ?? result.stderr.toString()}); install poppler-utils (scripts/ensure-deps.sh does)`,
    );
  }
  return result.stdout;
}

/** A notice as a picture: the page drawn by pdfkit, then rasterised, so the file has pixels and no text. */
export async function makeImage(page: SectionSpec, type: "png" | "jpeg"): Promise<Buffer> {
  return rasterise(await makePdf([page]), type);
}

/** A PDF of one Letter page per image, each image alone filling its page: what a scanner writes (no text layer). */
export async function makeImagePdf(images: Buffer[]): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false });
  const parts: Buffer[] = [];
  doc.on("data", (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve) => doc.on("end", () => resolve()));
  for (const image of images) doc.addPage({ size: "LETTER", margin: 0 }).image(image, 0, 0, { width: 612, height: 792 });
  doc.end();
  await finished;
  return Buffer.concat(parts);
}

/** A scanned page: the page rasterised to an image, and that image alone placed on a PDF page (no text layer). */
export async function makeScannedPdf(page: SectionSpec): Promise<Buffer> {
  return makeImagePdf([rasterise(await makePdf([page]), "png", 200)]);
}

/** A workbook with one sheet per entry, the first row its header. */
export async function makeXlsx(sheets: Array<{ name: string; rows: Array<Array<string | number | Date>> }>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const sheet of sheets) workbook.addWorksheet(sheet.name).addRows(sheet.rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Looks like a PDF by its header (so detection accepts it) but has no readable structure. */
export function corruptPdf(): Buffer {
  return Buffer.concat([
    Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1"),
    Buffer.from("1 0 obj << /Type /Catalog /Pages 9 0 R >>\nthis is not a pdf body at all ".repeat(20)),
  ]);
}

/** A Windows executable's opening bytes (MZ header, PE signature), for renamed-file tests. */
export function fakeExe(): Buffer {
  const bytes = Buffer.alloc(512);
  bytes.write("MZ", 0, "latin1");
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write("PE\0\0", 0x80, "latin1");
  return bytes;
}

export interface FormatFixture {
  format: "pdf" | "docx" | "pptx" | "xlsx" | "txt" | "markdown" | "html" | "csv" | "png" | "jpeg";
  name: string;
  bytes: Buffer;
  /** A word only this file holds, so a search or an answer that finds it found this file. */
  phrase: string;
}

/** One real file of every supported format (lib/document-formats.ts), each holding its own phrase. */
export async function oneOfEachFormat(tag: string): Promise<FormatFixture[]> {
  const phrase = (format: string) => `${format}${tag}`;
  const body = (format: string) => `The visitor parking zone is called ${phrase(format)}. Visitors must park only there.`;
  const heading = (format: string) => `Parking rules (${format})`;
  return [
    { format: "pdf", name: `parking-${tag}.pdf`, bytes: await makePdf([{ heading: heading("pdf"), body: body("pdf") }]), phrase: phrase("pdf") },
    { format: "docx", name: `parking-${tag}.docx`, bytes: await makeDocx([{ heading: heading("docx"), body: body("docx") }]), phrase: phrase("docx") },
    { format: "pptx", name: `parking-${tag}.pptx`, bytes: await makePptx([{ title: heading("pptx"), body: body("pptx") }]), phrase: phrase("pptx") },
    { format: "txt", name: `parking-${tag}.txt`, bytes: makeTxt(body("txt")), phrase: phrase("txt") },
    {
      format: "markdown",
      name: `parking-${tag}.md`,
      bytes: makeMarkdown([{ heading: heading("markdown"), body: body("markdown") }]),
      phrase: phrase("markdown"),
    },
    { format: "html", name: `parking-${tag}.html`, bytes: makeHtml([{ heading: heading("html"), body: body("html") }]), phrase: phrase("html") },
    { format: "csv", name: `parking-${tag}.csv`, bytes: makeCsv(["topic", "rule"], [["parking", body("csv")]]), phrase: phrase("csv") },
    {
      format: "xlsx",
      name: `parking-${tag}.xlsx`,
      bytes: await makeXlsx([
        {
          name: heading("xlsx"),
          rows: [
            ["topic", "rule"],
            ["parking", body("xlsx")],
          ],
        },
      ]),
      phrase: phrase("xlsx"),
    },
    // Read by OCR: the phrase may come back with a letter misread, so the journey checks only that each is indexed.
    { format: "png", name: `parking-${tag}.png`, bytes: await makeImage({ heading: heading("png"), body: body("png") }, "png"), phrase: phrase("png") },
    { format: "jpeg", name: `parking-${tag}.jpg`, bytes: await makeImage({ heading: heading("jpeg"), body: body("jpeg") }, "jpeg"), phrase: phrase("jpeg") },
  ];
}
