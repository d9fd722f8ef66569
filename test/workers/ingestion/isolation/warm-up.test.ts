/**
 * The warm-up a worker gives its extraction threads at start (warm-up.ts): the built-in sample is
 * a PDF the real reader accepts, with the structure the warm-up means to exercise (a title, a
 * heading set large, body text that makes chunks), and the pool's threads run it, from
 * the thread's own entry, without failing.
 */
import { expect } from "chai";
import { parseConfig } from "../../../../lib/config";
import { chunkDocument } from "../../../../workers/ingestion/chunking";
import { extractDocument } from "../../../../workers/ingestion/extract";
import { chunkingOptions, closeThreadPool, warmExtractionThreads } from "../../../../workers/ingestion/isolation";
import { warmUpPdf } from "../../../../workers/ingestion/isolation/warm-up";
import { memoryLogger } from "../../llm/helpers";
import { testEnv } from "../../../support/tunables";

describe("extraction thread warm-up", function () {
  this.timeout(60_000);
  after(() => closeThreadPool());

  it("reads a sample PDF with a title, a heading per page and text that chunks", async () => {
    const config = parseConfig(process.env);
    const document = await extractDocument(warmUpPdf(2), "pdf");
    expect(document.title).to.equal("Warm-up");
    expect(document.sections.map((section) => [section.heading, section.pageStart])).to.deep.equal([
      ["Section 1", 1],
      ["Section 2", 2],
    ]);
    expect(document.sections[0]!.text).to.have.length.greaterThan(2000);
    expect(chunkDocument(document, chunkingOptions(config)).length).to.be.greaterThan(1);
  });

  it("runs in the pool's threads, from their own entry, and reports it without a failure", async () => {
    const config = parseConfig(testEnv({ ...process.env, EXTRACT_THREADS: "2" }));
    const { log, lines } = memoryLogger();
    await warmExtractionThreads(config, log);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(
      logged.filter((line) => line.level >= 40),
      lines.join(""),
    ).to.deep.equal([]);
    expect(logged.map((line) => line.msg)).to.include("extraction threads warm");
  });

  it("warns once at start-up when OCR is not installed, and warms the threads all the same", async () => {
    const config = parseConfig(testEnv({ ...process.env, OCR_TESSERACT_BIN: "/nonexistent/tesseract" }));
    const { log, lines } = memoryLogger();
    await warmExtractionThreads(config, log);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string; missing?: string[] });
    const warnings = logged.filter((line) => line.level >= 40);
    expect(warnings.map((line) => line.msg)).to.have.length(1);
    expect(warnings[0]!.msg).to.include("OCR is not installed").and.include("OCR_UNAVAILABLE");
    expect(warnings[0]!.missing).to.deep.equal(["/nonexistent/tesseract"]);
    expect(logged.map((line) => line.msg)).to.include("extraction threads warm");
  });
});
