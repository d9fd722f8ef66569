/**
 * What extract/zip.ts adds around yauzl and fflate, checked on the module itself (the hostile
 * suites check it through extraction): the zip a parser is given holds the measured entries
 * whole (stored bytes, sizes, CRCs, names), bytes after the end record are ignored as Office
 * ignores them, and a password-protected file is refused before anything is inflated.
 */
import { crc32 } from "node:zlib";
import { expect } from "chai";
import yauzl from "yauzl";
import { ZipFile } from "yazl";
import { ExtractionError } from "../../../../workers/ingestion/extract";
import { DEFAULT_EXTRACTION_LIMITS } from "../../../../workers/ingestion/extract/types";
import { openZip } from "../../../../workers/ingestion/extract/zip";

async function zipOf(files: Record<string, { text: string; compress: boolean }>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, { text, compress }] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name, { compress });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every entry of `bytes` as yauzl reads it with its own checks on (sizes; the CRC checked here). */
async function entriesOf(bytes: Buffer): Promise<Array<{ name: string; method: number; text: string }>> {
  const file = await yauzl.fromBufferPromise(bytes, { validateEntrySizes: true });
  const entries: Array<{ name: string; method: number; text: string }> = [];
  for (;;) {
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      file
        .once("entry", resolve)
        .once("end", () => resolve(null))
        .once("error", reject);
      file.readEntry();
    });
    if (!entry) return entries;
    file.removeAllListeners("entry").removeAllListeners("end").removeAllListeners("error");
    const chunks: Buffer[] = [];
    for await (const chunk of await file.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    const content = Buffer.concat(chunks);
    expect(crc32(content) >>> 0, entry.fileName).to.equal(entry.crc32);
    entries.push({ name: entry.fileName, method: entry.compressionMethod, text: content.toString("utf8") });
  }
}

const files = {
  "[Content_Types].xml": { text: "<Types/>", compress: false },
  "word/document.xml": { text: `<w:document>${"Café policy. ".repeat(500)}</w:document>`, compress: true },
  "docProps/core.xml": { text: "<dc:title>Returns</dc:title>", compress: true },
};

describe("SafeZip around yauzl and fflate", () => {
  it("gives a parser the measured entries whole: names, stored and deflated bytes, sizes and CRCs", async () => {
    const zip = await openZip(await zipOf(files), DEFAULT_EXTRACTION_LIMITS, "corrupt");
    const rewritten = await entriesOf(await zip.measuredArchive());
    expect(rewritten).to.deep.equal(Object.entries(files).map(([name, { text, compress }]) => ({ name, method: compress ? 8 : 0, text })));
    expect(await zip.readText("docProps/core.xml")).to.equal("<dc:title>Returns</dc:title>");
  });

  it("ignores bytes after the end record, as Office does", async () => {
    const zip = await openZip(Buffer.concat([await zipOf(files), Buffer.from("appended tag")]), DEFAULT_EXTRACTION_LIMITS, "corrupt");
    expect([...zip.entries.keys()]).to.deep.equal(Object.keys(files));
    expect(await zip.readText("word/document.xml")).to.contain("Café policy.");
  });

  it("refuses a password-protected file before inflating anything, and a file that is no zip as corrupt", async () => {
    const bytes = await zipOf(files);
    // Set the encryption flag in the central directory's second record (word/document.xml).
    const first = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const record = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), first + 1);
    expect(bytes.toString("utf8", record + 46, record + 46 + bytes.readUInt16LE(record + 28))).to.equal("word/document.xml");
    bytes.writeUInt16LE(bytes.readUInt16LE(record + 8) | 0x1, record + 8);
    const refused = await openZip(bytes, DEFAULT_EXTRACTION_LIMITS, "corrupt").catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ExtractionError);
    expect((refused as ExtractionError).code).to.equal("EXTRACTION_UNSUPPORTED");
    expect((refused as ExtractionError).message).to.match(/password-protected/);

    const notZip = await openZip(Buffer.from("not a zip at all, just text"), DEFAULT_EXTRACTION_LIMITS, "The file is corrupt").catch((error: unknown) => error);
    expect((notZip as ExtractionError).code).to.equal("EXTRACTION_FAILED");
    expect((notZip as ExtractionError).message).to.equal("The file is corrupt");
  });
});
