/**
 * The formats the reference designs list beyond the modern ones: Word and Excel 97–2003 (.doc,
 * .xls: OLE2 files made by Microsoft Word and Excel, read by Debian's antiword and xls2csv as
 * bounded child processes of the extraction thread) and TIFF, GIF and WebP images (ImageMagick
 * fixtures, read by tesseract through leptonica). Each is read as the worker reads it, in the
 * extraction thread, with this process's event loop watched; and each way such a file can be
 * wrong ends within its bound with a code a person can act on.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { detectFormat } from "../../../lib/detect-document-format";
import { extractDocument, ExtractionError } from "../../../workers/ingestion/extract";
import { MAX_TIFF_PAGES } from "../../../workers/ingestion/extract/image-dimensions";
import { DEFAULT_EXTRACTION_LIMITS } from "../../../workers/ingestion/extract/types";
import { readInThread } from "../../support/read-in-thread";

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

/** Runs `work` with `programs` (name → shell script body) first on PATH; for converters that hang or are missing. */
async function withPrograms<T>(programs: Record<string, string> | null, work: () => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "fake-bin-"));
  const path = process.env.PATH;
  for (const [name, body] of Object.entries(programs ?? {})) writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  // null: a PATH with nothing on it but the empty directory (the converters are "not installed").
  process.env.PATH = programs === null ? dir : `${dir}:${path}`;
  try {
    return await work();
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A classic little-endian TIFF header whose IFDs declare `pages` pages of `width` × `height` (no pixels). */
function tiffHeader(pages: number, width: number, height: number, loop = false): Buffer {
  const ifdSize = 2 + 2 * 12 + 4;
  const bytes = Buffer.alloc(8 + pages * ifdSize);
  bytes.write("II", 0, "latin1");
  bytes.writeUInt16LE(42, 2);
  bytes.writeUInt32LE(8, 4);
  for (let page = 0; page < pages; page++) {
    const at = 8 + page * ifdSize;
    bytes.writeUInt16LE(2, at);
    for (const [i, [tag, value]] of [
      [256, width],
      [257, height],
    ].entries()) {
      const entry = at + 2 + i * 12;
      bytes.writeUInt16LE(tag!, entry);
      bytes.writeUInt16LE(4, entry + 2);
      bytes.writeUInt32LE(1, entry + 4);
      bytes.writeUInt32LE(value!, entry + 8);
    }
    const last = page === pages - 1;
    bytes.writeUInt32LE(last ? (loop ? 8 : 0) : at + ifdSize, at + 2 + 2 * 12);
  }
  return bytes;
}

describe("legacy Office files and TIFF, GIF and WebP images", function () {
  this.timeout(60_000);

  describe("files made by Word, Excel and ImageMagick (test/fixtures/documents)", () => {
    it("reads a Word 97–2003 .doc by antiword, and takes it as .doc by name and content only", async () => {
      const bytes = fixture("quick-fox.doc");
      expect(await detectFormat(bytes, "notes.doc")).to.equal("doc");
      expect(await detectFormat(bytes, "notes.docx"), "an OLE2 file is no DOCX").to.equal(null);
      expect(await detectFormat(fixture("lost-property.png"), "notes.doc"), "a PNG named .doc").to.equal(null);
      const doc = await readInThread(bytes, "doc");
      expect(doc.format).to.equal("doc");
      expect(doc.fullText).to.equal("the quick brown fox jumps over the lazy dog");
    });

    it("reads an Excel 97–2003 .xls by xls2csv as the same table sections as an XLSX sheet", async () => {
      const bytes = fixture("quick-fox.xls");
      expect(await detectFormat(bytes, "rota.xls")).to.equal("xls");
      const doc = await readInThread(bytes, "xls");
      expect(doc.format).to.equal("xls");
      expect(doc.sections).to.have.length(1);
      expect(doc.sections[0]!.heading).to.equal("Sheet");
      expect(doc.sections[0]!.text.split("\n")).to.deep.equal([
        "| the | quick | brown | fox |",
        "| --- | --- | --- | --- |",
        "| jumps | over the |  |  |",
        "| lazy |  |  |  |",
        "|  | dog |  |  |",
      ]);
    });

    for (const { name, ext, format, title, sentence } of [
      { name: "bike-storage.tiff", ext: ".tif", format: "tiff", title: "Bike storage", sentence: "cage code" },
      { name: "printer-paper.gif", ext: ".gif", format: "gif", title: "Printer paper", sentence: "stationery cupboard" },
      { name: "parking-permits.webp", ext: ".webp", format: "webp", title: "Parking permits", sentence: "facilities desk" },
    ] as const) {
      it(`reads a ${format.toUpperCase()} notice by OCR, its first line the title`, async () => {
        const bytes = fixture(name);
        expect(await detectFormat(bytes, `notice${ext}`)).to.equal(format);
        expect(await detectFormat(fixture("lost-property.png"), `notice${ext}`), "a PNG under this name").to.equal(null);
        const doc = await readInThread(bytes, format);
        expect(doc.title).to.equal(title);
        expect(doc.fullText).to.include(sentence);
      });
    }
  });

  describe("what ends with a code, within its bound", () => {
    it("fails a spreadsheet named .doc, a Word file named .xls and a broken OLE2 file EXTRACTION_FAILED, at once", async () => {
      const started = performance.now();
      const wrongKind = await failure(readInThread(fixture("quick-fox.xls"), "doc"));
      expect(wrongKind.code).to.equal("EXTRACTION_FAILED");
      expect(wrongKind.message).to.include("not a Word 97–2003 file");
      expect((await failure(readInThread(fixture("quick-fox.doc"), "xls"))).message).to.include("not an Excel 97–2003 file");
      const broken = Buffer.concat([fixture("quick-fox.doc").subarray(0, 512), Buffer.alloc(4096, 0xff)]);
      expect(await detectFormat(broken, "broken.doc"), "the OLE2 signature is all detection sees").to.equal("doc");
      expect((await failure(readInThread(broken, "doc"))).code).to.equal("EXTRACTION_FAILED");
      expect((await failure(readInThread(broken, "xls"))).code).to.equal("EXTRACTION_FAILED");
      expect(performance.now() - started, "four refusals, each a converter's quick exit").to.be.below(10_000);
    });

    it("stops a converter that hangs at its wall-clock limit (EXTRACTION_TIMEOUT) and kills it", async () => {
      const limits = { ...DEFAULT_EXTRACTION_LIMITS, converterTimeoutMs: 500 };
      await withPrograms({ antiword: "exec sleep 30", xls2csv: "exec sleep 30" }, async () => {
        for (const format of ["doc", "xls"] as const) {
          const started = performance.now();
          const error = await failure(extractDocument(fixture(`quick-fox.${format}`), format, limits));
          expect(error.code).to.equal("EXTRACTION_TIMEOUT");
          expect(error.message).to.include("save it as DOCX/XLSX");
          expect(performance.now() - started).to.be.below(5_000);
        }
      });
    });

    it("fails CONVERTER_UNAVAILABLE, naming the Debian packages, on a server without the converters", async () => {
      await withPrograms(null, async () => {
        for (const format of ["doc", "xls"] as const) {
          const error = await failure(extractDocument(fixture(`quick-fox.${format}`), format));
          expect(error.code).to.equal("CONVERTER_UNAVAILABLE");
          expect(error.message).to.include("apt-get install antiword catdoc");
        }
      });
    });

    it("refuses a converter's output past EXTRACT_MAX_TEXT_CHARS (EXTRACTION_TOO_LARGE)", async () => {
      const limits = { ...DEFAULT_EXTRACTION_LIMITS, maxTextChars: 1_000 };
      await withPrograms({ antiword: "exec head -c 100000 /dev/zero | tr '\\0' a" }, async () => {
        expect((await failure(extractDocument(fixture("quick-fox.doc"), "doc", limits))).code).to.equal("EXTRACTION_TOO_LARGE");
      });
    });

    it("refuses GIF, WebP and TIFF pixel bombs and a TIFF of too many pages before any decoder sees them", async () => {
      const gif = Buffer.from(fixture("printer-paper.gif"));
      gif.writeUInt16LE(65_535, 6);
      gif.writeUInt16LE(65_535, 8);
      const webp = Buffer.alloc(40);
      webp.write("RIFF", 0, "latin1");
      webp.write("WEBPVP8X", 8, "latin1");
      webp.writeUIntLE(16_383, 24, 3);
      webp.writeUIntLE(16_383, 27, 3);
      for (const [bytes, format] of [
        [gif, "gif"],
        [webp, "webp"],
        [tiffHeader(1, 100_000, 100_000), "tiff"],
        [tiffHeader(MAX_TIFF_PAGES + 5, 100, 100), "tiff"],
      ] as const) {
        const error = await failure(readInThread(bytes, format));
        expect(error.code, `${format}: ${error.message}`).to.equal("EXTRACTION_TOO_LARGE");
      }
      expect((await failure(readInThread(tiffHeader(3, 100, 100, true), "tiff"))).message).to.equal("The image is corrupt or could not be read");
    });
  });
});
