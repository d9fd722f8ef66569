/**
 * Extractors and chunkers on several MB of adversarial input, each run as the worker runs it: in
 * a limited extraction thread (workers/ingestion/isolation), while this process's event loop (the
 * one that streams answers and renews BullMQ locks in a worker) is watched: it must never be
 * blocked past the hostile-input bound, whatever the input makes the thread do.
 */
import { expect } from "chai";
import { parseConfig } from "../../../../lib/config";
import type { DocumentFormat } from "../../../../lib/document-formats";
import { type ChunkingOptions, chunkDocument } from "../../../../workers/ingestion/chunking";
import { extractDocument, ExtractionError } from "../../../../workers/ingestion/extract";
import type { ExtractedDocument } from "../../../../workers/ingestion/extract/types";
import { chunkInThread, closeThreadPool, extractInThread } from "../../../../workers/ingestion/isolation";
import { makeTxt } from "../../../support/document-fixtures";
import { expectNoLongBlock } from "../../../support/event-loop-block";
import { memoryLogger } from "../../../workers/llm/helpers";
import { deeplyNestedHtml, docxBomb, markdownSpacedHeading, pptxWithShapes, wideCsv } from "../../../workers/ingestion/hostile-fixtures";

const config = parseConfig(process.env);
const { log } = memoryLogger();

async function outcome(work: () => Promise<unknown> | unknown): Promise<{ ms: number; code: string | null }> {
  const started = performance.now();
  try {
    await work();
    return { ms: performance.now() - started, code: null };
  } catch (error) {
    if (!(error instanceof ExtractionError)) throw error;
    return { ms: performance.now() - started, code: error.code };
  }
}

/** Built before the watch starts: making a hostile fixture is the test's work, not the worker's. */
type HostileWork = { extract: Buffer; format: DocumentFormat } | { chunk: ExtractedDocument; options: ChunkingOptions };

const inThread = (work: HostileWork) =>
  "extract" in work ? extractInThread(work.extract, work.format, config, log) : chunkInThread(work.chunk, work.options, config, log);

describe("extractors and chunkers on several MB of adversarial input", () => {
  after(() => closeThreadPool());

  const cases: Array<{ name: string; run: () => HostileWork; code: string | null }> = [
    { name: "Markdown heading with 3,000,000 spaces", run: () => ({ extract: markdownSpacedHeading(3_000_000, "Body."), format: "markdown" }), code: null },
    { name: "PPTX with 100,000 unclosed <p:sp>", run: () => ({ extract: pptxWithShapes(100_000, "Deck", "Body."), format: "pptx" }), code: null },
    {
      name: "PPTX with 300,000 closed empty shapes",
      run: () => ({
        extract: pptxWithShapes(0, "Deck", `Body.</a:t></a:r></a:p></p:txBody></p:sp>${"<p:sp></p:sp>".repeat(300_000)}<p:sp><p:txBody><a:p><a:r><a:t>End`),
        format: "pptx",
      }),
      code: null,
    },
    { name: "HTML nested 10,000 deep, 30 times (3 MB)", run: () => ({ extract: deeplyNestedHtml(10_000, 30, "Deep."), format: "html" }), code: null },
    { name: "HTML with 1,000,000 unclosed <div>s", run: () => ({ extract: Buffer.from(`${"<div>".repeat(1_000_000)}text`), format: "html" }), code: null },
    {
      name: "HTML with 600,000 unterminated <?xml and <!doctype",
      run: () => ({ extract: Buffer.from(`${"<?xml<!doctype".repeat(300_000)}<p>x</p>`), format: "html" }),
      code: null,
    },
    {
      name: "text line of 4,000,000 spaces (trailing-space trim)",
      run: () => ({ extract: Buffer.from(`a${" ".repeat(4_000_000)}b${" ".repeat(1_000_000)}`), format: "txt" }),
      code: null,
    },
    {
      name: "CSV of 200 × 2,000-character column names and 4,000 rows",
      run: () => ({ extract: wideCsv(200, 2_000, 4_000), format: "csv" }),
      code: "EXTRACTION_TOO_LARGE",
    },
    { name: "CSV field of 4,000,000 quotes", run: () => ({ extract: Buffer.from(`a${'"'.repeat(4_000_000)}\n`), format: "csv" }), code: null },
    { name: "DOCX inflating to 1 GB (honest directory)", run: () => ({ extract: docxBomb(), format: "docx" }), code: "EXTRACTION_TOO_LARGE" },
    {
      name: "DOCX inflating to 1 GB (directory claims 64 kB)",
      run: () => ({ extract: docxBomb({ lie: true }), format: "docx" }),
      code: "EXTRACTION_TOO_LARGE",
    },
    {
      // Chunking is linear too, but tiktoken spends ~7 µs a character on one endless "word"
      // (measured: 2.6 s for 250k, 6.6 s for 1M); it runs in the limited thread like extraction.
      name: "recursive chunking of 250,000 closing brackets after a full stop",
      run: () => ({
        chunk: {
          format: "txt",
          fullText: "",
          pageCount: null,
          sections: [{ heading: null, text: `.${")".repeat(250_000)} end`, pageStart: null, pageEnd: null }],
        },
        options: { strategy: "recursive", chunkTokens: 400, overlapTokens: 50 },
      }),
      code: null,
    },
    {
      name: "token chunking of one 250,000-letter word",
      run: () => ({
        chunk: { format: "txt", fullText: "", pageCount: null, sections: [{ heading: null, text: "a".repeat(250_000), pageStart: null, pageEnd: null }] },
        options: { strategy: "token", chunkTokens: 400, overlapTokens: 50 },
      }),
      code: null,
    },
    {
      name: "markdown chunking of a 3,000,000-space heading line",
      run: () => ({
        chunk: {
          format: "markdown",
          fullText: "",
          pageCount: null,
          sections: [{ heading: null, text: `## a${" ".repeat(3_000_000)}b\n\nbody`, pageStart: null, pageEnd: null }],
        },
        options: { strategy: "markdown", chunkTokens: 400, overlapTokens: 50 },
      }),
      code: null,
    },
  ];
  for (const { name, run, code } of cases) {
    it(`${name}: ${code ?? "read"} in under 5 s, in a thread, the event loop never blocked`, async () => {
      const work = run();
      const result = await expectNoLongBlock(name, () => outcome(() => inThread(work)));
      expect(result.code).to.equal(code);
      expect(result.ms, `${Math.round(result.ms)} ms`).to.be.lessThan(5_000);
    });
  }

  it("keeps the meaning of what it reads: heading of the spaced Markdown, PPTX title and body, capped CSV labels", async () => {
    expect((await extractDocument(markdownSpacedHeading(3_000_000, "Body."), "markdown")).sections[0]).to.deep.include({ heading: "a b", text: "Body." });
    const deck = await extractDocument(pptxWithShapes(100_000, "Deck &amp; co", "Line one."), "pptx");
    expect(deck.sections).to.deep.equal([{ heading: "Deck & co", text: "Line one.", pageStart: 1, pageEnd: 1 }]);
    const csv = await extractDocument(wideCsv(3, 2_000, 1), "csv");
    const [, , row] = csv.sections[0]!.text.split("\n");
    expect(row!.length).to.be.lessThan(3 * 80);
    expect(row).to.match(/^0000n+…: v0; 0001n+…: v1; 0002n+…: v2$/);
  });

  it("fails a document past EXTRACT_MAX_TEXT_CHARS or INGEST_MAX_CHUNKS with a message naming the setting", async () => {
    const limits = { maxTextChars: 10_000, zipMaxUncompressedBytes: 1 << 20, zipMaxEntries: 10 };
    const text = await outcome(() => extractDocument(makeTxt("word ".repeat(5_000)), "txt", limits));
    expect(text.code).to.equal("EXTRACTION_TOO_LARGE");
    const error = await extractDocument(makeTxt("word ".repeat(5_000)), "txt", limits).catch((e: ExtractionError) => e);
    expect((error as ExtractionError).message).to.match(/10,000 characters \(EXTRACT_MAX_TEXT_CHARS\); split the file/);
    const chunks = (() => {
      try {
        chunkDocument(
          {
            format: "txt",
            fullText: "",
            pageCount: null,
            sections: [{ heading: null, text: "Sentence one. ".repeat(2_000), pageStart: null, pageEnd: null }],
          },
          { strategy: "recursive", chunkTokens: 50, overlapTokens: 0, maxChunks: 3 },
        );
      } catch (e) {
        return e as ExtractionError;
      }
    })();
    expect(chunks?.code).to.equal("EXTRACTION_TOO_LARGE");
    expect(chunks?.message).to.match(/more than 3 chunks \(INGEST_MAX_CHUNKS\)/);
    const entries = await outcome(() => extractDocument(docxBomb({ inflatedBytes: 1 << 20 }), "docx", { ...limits, zipMaxEntries: 1 }));
    expect(entries.code).to.equal("EXTRACTION_TOO_LARGE");
  });
});
