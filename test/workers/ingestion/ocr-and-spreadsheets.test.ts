/**
 * Scanned PDFs, images and workbooks read as the worker reads them, in the extraction thread,
 * with this process's event loop never blocked past the hostile-input bound (read-in-thread.ts):
 * files made by other tools (test/fixtures/documents: ImageMagick, Ghostscript, LibreOffice),
 * files made here (pdfkit pages rasterised by pdftoppm, exceljs workbooks), and every bound:
 * OCR missing or missing a language, the page cap, the per-page and per-document clocks, the
 * OCR process's memory, a pixel bomb, the workbook's cells and zip limits.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import ExcelJS from "exceljs";
import PDFDocument from "pdfkit";
import { parseConfig } from "../../../lib/config";
import { detectFormat } from "../../../lib/detect-document-format";
import { ExtractionError, type ExtractionLimits } from "../../../workers/ingestion/extract";
import { DEFAULT_EXTRACTION_LIMITS, DEFAULT_OCR_SETTINGS } from "../../../workers/ingestion/extract/types";
import { extractInThread } from "../../../workers/ingestion/isolation";
import { makeImagePdf, makePdf, makeScannedPdf, makeXlsx, rasterise } from "../../support/document-fixtures";
import { readInThread } from "../../support/read-in-thread";
import { memoryLogger } from "../llm/helpers";
import { testEnv } from "../../support/tunables";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url));

async function failure(promise: Promise<unknown>): Promise<ExtractionError> {
  try {
    await promise;
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(ExtractionError);
    return error as ExtractionError;
  }
  throw new Error("expected extraction to fail");
}

const withOcr = (ocr: Partial<typeof DEFAULT_OCR_SETTINGS>, rest: Partial<ExtractionLimits> = {}): ExtractionLimits => ({
  ...DEFAULT_EXTRACTION_LIMITS,
  ...rest,
  ocr: { ...DEFAULT_OCR_SETTINGS, ...ocr },
});

/** Two pages: the first born digital, the second only a picture of text. */
async function mixedPdf(): Promise<Buffer> {
  const scan = rasterise(await makePdf([{ heading: "Badge office", body: "Lost badges are replaced at the badge office on floor three." }]), "png", 200);
  const doc = new PDFDocument({ autoFirstPage: false });
  const parts: Buffer[] = [];
  doc.on("data", (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve) => doc.on("end", () => resolve()));
  doc.addPage();
  doc.fontSize(20).text("Visitor policy");
  doc.moveDown();
  doc.fontSize(11).text("Visitors sign in at the front desk and wear a visitor lanyard at all times.");
  doc.addPage({ margin: 0 });
  doc.image(scan, 0, 0, { width: 612, height: 792 });
  doc.end();
  await finished;
  return Buffer.concat(parts);
}

describe("OCR and spreadsheets", function () {
  this.timeout(60_000);

  describe("files made by other tools (test/fixtures/documents)", () => {
    it("reads a scanned page (ImageMagick + Ghostscript, no text layer) by OCR, with its page and its title as heading", async () => {
      const bytes = fixture("scanned-safety-notice.pdf");
      expect(await detectFormat(bytes, "scan.pdf")).to.equal("pdf");
      const doc = await readInThread(bytes, "pdf");
      expect(doc.pageCount).to.equal(1);
      expect(doc.title).to.equal("Warehouse Safety Notice");
      expect(doc.sections).to.have.length(1);
      expect(doc.sections[0]).to.include({ heading: "Warehouse Safety Notice", pageStart: 1, pageEnd: 1 });
      expect(doc.fullText).to.include("The forklift charging station is in Bay 14");
      expect(doc.fullText).to.include("safety gloves");
    });

    it("reads a photo-like JPEG of a Spanish notice (perspective, shadow, noise)", async () => {
      const bytes = fixture("aviso-cocina.jpg");
      expect(await detectFormat(bytes, "aviso.jpg")).to.equal("jpeg");
      expect(await detectFormat(bytes, "aviso.jpeg")).to.equal("jpeg");
      const doc = await readInThread(bytes, "jpeg");
      expect(doc.format).to.equal("jpeg");
      expect(doc.title).to.equal("AVISO AL PERSONAL");
      expect(doc.fullText).to.include("La cocina del personal se limpia todos los");
      expect(doc.fullText).to.include("viernes a las tres de la tarde");
    });

    it("reads a PNG notice", async () => {
      const bytes = fixture("lost-property.png");
      expect(await detectFormat(bytes, "notice.png")).to.equal("png");
      const doc = await readInThread(bytes, "png");
      expect(doc.sections[0]!.heading).to.equal("Lost property");
      expect(doc.fullText).to.match(/kept at the\s+reception desk for thirty days/);
    });

    it("reads a LibreOffice workbook sheet by sheet as tables: cached formula results, ISO dates, its saved title", async () => {
      const bytes = fixture("site-rota.xlsx");
      expect(await detectFormat(bytes, "rota.xlsx")).to.equal("xlsx");
      const doc = await readInThread(bytes, "xlsx");
      expect(doc.title).to.equal("Warehouse rota and first aid");
      expect(doc.sections.map((section) => section.heading)).to.deep.equal(["First aid", "Overtime"]);
      expect(doc.sections[0]!.text).to.equal(
        [
          "| Shift | First aider | Extension | Trained since |",
          "| --- | --- | --- | --- |",
          "| Morning shift | Ana Torres | 2141 | 2025-03-01 |",
          "| Afternoon shift | Li Wei | 2142 | 2024-11-15 |",
          "| Night shift | Carmen Ruiz | 2187 | 2026-01-10 |",
        ].join("\n"),
      );
      // D2 is =B2*C2 and row 4 holds SUM()s: the values LibreOffice computed, not the formulas.
      expect(doc.sections[1]!.text).to.include("| Ana Torres | 6 | 18.5 | 111 |");
      expect(doc.sections[1]!.text).to.include("| Total | 10 |  | 191 |");
      expect(doc.fullText).to.not.include("SUM(");
    });
  });

  describe("PDF pages without text", () => {
    it("OCRs only the page without a text layer and keeps the other page's own text", async () => {
      const doc = await readInThread(await mixedPdf(), "pdf");
      expect(doc.pageCount).to.equal(2);
      const [first, second] = [doc.sections.filter((s) => s.pageStart === 1), doc.sections.filter((s) => s.pageStart === 2)];
      expect(first.map((s) => s.text).join("\n")).to.include("Visitors sign in at the front desk");
      expect(second.map((s) => s.heading)).to.deep.equal(["Badge office"]);
      expect(second[0]!.text).to.include("Lost badges are replaced at the badge office on floor three.");
    });

    it("refuses more pages to OCR than OCR_MAX_PAGES before reading any", async () => {
      const page = rasterise(await makePdf([{ heading: "Scan", body: "A page of scanned text." }]), "png", 72);
      const error = await failure(readInThread(await makeImagePdf([page, page, page]), "pdf", withOcr({ maxPages: 2 })));
      expect(error.code).to.equal("EXTRACTION_TOO_LARGE");
      expect(error.message).to.include("3 pages without text").and.include("OCR_MAX_PAGES");
    });
  });

  describe("without OCR", () => {
    const missing = { tesseract: "/nonexistent/tesseract" };

    it("fails an image and an all-scanned PDF OCR_UNAVAILABLE, saying what to install", async () => {
      for (const [bytes, format] of [
        [fixture("lost-property.png"), "png"],
        [fixture("aviso-cocina.jpg"), "jpeg"],
        [fixture("scanned-safety-notice.pdf"), "pdf"],
      ] as const) {
        const error = await failure(readInThread(bytes, format, withOcr(missing)));
        expect(error.code, format).to.equal("OCR_UNAVAILABLE");
        expect(error.message).to.include("needs OCR").and.include("apt-get install tesseract-ocr");
      }
    });

    it("still reads a PDF whose other pages have text, from its text layer", async () => {
      const doc = await readInThread(await mixedPdf(), "pdf", withOcr(missing));
      expect(doc.fullText).to.include("Visitors sign in at the front desk");
      expect(doc.fullText).to.not.include("badge office");
    });

    it("fails OCR_UNAVAILABLE when a language of OCR_LANGUAGES has no data, and when pdftoppm is missing", async () => {
      const language = await failure(readInThread(fixture("lost-property.png"), "png", withOcr({ languages: "eng+xyz" })));
      expect(language.code).to.equal("OCR_UNAVAILABLE");
      expect(language.message).to.include("no data for xyz");
      const renderer = await failure(readInThread(fixture("scanned-safety-notice.pdf"), "pdf", withOcr({ pdftoppm: "/nonexistent/pdftoppm" })));
      expect(renderer.code).to.equal("OCR_UNAVAILABLE");
      expect(renderer.message).to.include("pdftoppm");
    });

    it("is a readable FAILED in the extraction thread too, not a thread failure", async () => {
      const config = parseConfig(testEnv({ ...process.env, OCR_TESSERACT_BIN: "/nonexistent/tesseract" }));
      const error = await failure(extractInThread(fixture("lost-property.png"), "png", config, memoryLogger().log));
      expect(error.code).to.equal("OCR_UNAVAILABLE");
    });
  });

  describe("bounds", () => {
    it("stops a page past OCR_PAGE_TIMEOUT_MS and a document past OCR_TIMEOUT_MS (EXTRACTION_TIMEOUT)", async () => {
      const page = await failure(readInThread(fixture("scanned-safety-notice.pdf"), "pdf", withOcr({ pageTimeoutMs: 100 })));
      expect(page.code).to.equal("EXTRACTION_TIMEOUT");
      expect(page.message).to.include("OCR_PAGE_TIMEOUT_MS");
      const whole = await failure(readInThread(fixture("scanned-safety-notice.pdf"), "pdf", withOcr({ timeoutMs: 150 })));
      expect(whole.code).to.equal("EXTRACTION_TIMEOUT");
      expect(whole.message).to.include("OCR_TIMEOUT_MS");
    });

    it("fails an OCR process that needs more than OCR_MEMORY_MB", async () => {
      const error = await failure(readInThread(fixture("lost-property.png"), "png", withOcr({ memoryMb: 64 })));
      expect(error.code).to.equal("EXTRACTION_FAILED");
      expect(error.message).to.include("OCR_MEMORY_MB");
    });

    it("gives a file that needs OCR the OCR budget in the thread, not EXTRACT_TIMEOUT_MS", async () => {
      // A warm thread (pdf.js loaded) reaches the OCR in a few ms; the OCR itself takes seconds.
      await extractInThread(await makePdf([{ heading: "Warm", body: "Loads pdf.js in the thread." }]), "pdf", parseConfig(process.env), memoryLogger().log);
      const config = parseConfig(testEnv({ ...process.env, EXTRACT_TIMEOUT_MS: "1000" }));
      const doc = await extractInThread(fixture("scanned-safety-notice.pdf"), "pdf", config, memoryLogger().log);
      expect(doc.fullText).to.include("Bay 14");
      const ocrBound = parseConfig(testEnv({ ...process.env, EXTRACT_TIMEOUT_MS: "1000", OCR_TIMEOUT_MS: "200", OCR_PAGE_TIMEOUT_MS: "100" }));
      const error = await failure(extractInThread(fixture("scanned-safety-notice.pdf"), "pdf", ocrBound, memoryLogger().log));
      expect(error.code).to.equal("EXTRACTION_TIMEOUT");
      expect(error.message).to.match(/OCR_(PAGE_)?TIMEOUT_MS/);
    });

    it("refuses an image whose header declares a pixel bomb before any decoder sees it", async () => {
      const png = Buffer.from(fixture("lost-property.png"));
      png.writeUInt32BE(100_000, 16);
      png.writeUInt32BE(100_000, 20);
      const error = await failure(readInThread(png, "png"));
      expect(error.code).to.equal("EXTRACTION_TOO_LARGE");
      expect(error.message).to.include("100000 × 100000");
    });

    it("reads a scanned PDF made here (pdfkit page rasterised by pdftoppm) end to end", async () => {
      const doc = await readInThread(await makeScannedPdf({ heading: "Fire doors", body: "Fire doors must never be wedged open." }), "pdf");
      expect(doc.sections[0]!.heading).to.equal("Fire doors");
      expect(doc.fullText).to.include("Fire doors must never be wedged open.");
    });
  });

  describe("XLSX", () => {
    it("repeats the header before every 30 rows, naming the rows, and drops empty columns", async () => {
      const rows: Array<Array<string | number>> = [["Store", "", "Manager"]];
      for (let i = 1; i <= 45; i++) rows.push([`Store ${i}`, "", `Manager ${i}`]);
      const doc = await readInThread(await makeXlsx([{ name: "Stores", rows }]), "xlsx");
      expect(doc.sections.map((s) => s.heading)).to.deep.equal(["Stores", "Stores (rows 32–46)"]);
      for (const section of doc.sections) expect(section.text.split("\n")[0]).to.equal("| Store | Manager |");
      expect(doc.sections[1]!.text).to.include("| Store 45 | Manager 45 |");
    });

    it("keeps a far-away stray cell from widening every row", async () => {
      const bytes = await makeXlsx([
        {
          name: "Sparse",
          rows: [
            ["Item", "Where"],
            ["Ladder", "Store room"],
          ],
        },
      ]);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
      workbook.getWorksheet("Sparse")!.getCell("XFD2").value = "note";
      const doc = await readInThread(Buffer.from(await workbook.xlsx.writeBuffer()), "xlsx");
      expect(doc.sections[0]!.text.split("\n")[2]).to.equal("| Ladder | Store room | note |");
    });

    it("writes dates as ISO 8601 and escapes a | inside a cell", async () => {
      const doc = await readInThread(
        await makeXlsx([
          {
            name: "Dates",
            rows: [
              ["Event", "When"],
              ["Audit | yearly", new Date(Date.UTC(2026, 2, 14))],
              ["Drill", new Date(Date.UTC(2026, 2, 14, 9, 30))],
            ],
          },
        ]),
        "xlsx",
      );
      expect(doc.fullText).to.include("| Audit \\| yearly | 2026-03-14 |");
      expect(doc.fullText).to.include("| Drill | 2026-03-14T09:30:00 |");
    });

    it("stops at XLSX_MAX_CELLS and at the zip limits (EXTRACTION_TOO_LARGE)", async () => {
      const rows = Array.from({ length: 20 }, (_, i) => [`a${i}`, `b${i}`, `c${i}`]);
      const bytes = await makeXlsx([{ name: "Big", rows }]);
      const cells = await failure(readInThread(bytes, "xlsx", { ...DEFAULT_EXTRACTION_LIMITS, xlsxMaxCells: 50 }));
      expect(cells.code).to.equal("EXTRACTION_TOO_LARGE");
      expect(cells.message).to.include("XLSX_MAX_CELLS");
      const inflated = await failure(readInThread(bytes, "xlsx", { ...DEFAULT_EXTRACTION_LIMITS, zipMaxUncompressedBytes: 2048 }));
      expect(inflated.code).to.equal("EXTRACTION_TOO_LARGE");
      expect(inflated.message).to.include("ZIP_MAX_UNCOMPRESSED_BYTES");
    });

    it("refuses a workbook with nothing in it and a corrupt one, readably", async () => {
      const empty = await failure(readInThread(await makeXlsx([{ name: "Empty", rows: [] }]), "xlsx"));
      expect(empty.message).to.include("empty");
      const corrupt = await failure(readInThread(Buffer.from("PK\u0003\u0004 not really a zip"), "xlsx"));
      expect(corrupt.message).to.match(/corrupt/i);
    });
  });
});
