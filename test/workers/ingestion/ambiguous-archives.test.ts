/**
 * Zips that show a reader something other than what we measured (issue 30): a second entry under
 * a name JSZip (inside mammoth) or Office takes for the same part, an entry whose local header
 * names another part, an entry listed past the directory's count. Names that collide are refused
 * before anything is inflated; what a parser reads is the archive re-written from the measured
 * entries, so hidden entries never reach it. Each is read as the worker reads it, in an
 * extraction thread, with this process's event loop never blocked past the hostile-input bound.
 */
import { expect } from "chai";
import { ExtractionError } from "../../../workers/ingestion/extract";
import { closeThreadPool } from "../../../workers/ingestion/isolation";
import { collisionKey, entryPath } from "../../../workers/ingestion/extract/zip-names";
import { makeDocx } from "../../support/document-fixtures";
import { readInThread } from "../../support/read-in-thread";
import { docxWithDuplicate, docxWithHiddenEntry, pptxWithDuplicate } from "./hostile-fixtures";

async function refusal(work: Promise<unknown>): Promise<ExtractionError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the file was read instead of refused").to.be.instanceOf(ExtractionError);
  return error as ExtractionError;
}

describe("zip archives whose names collide or hide entries", function () {
  this.timeout(30_000);
  after(() => closeThreadPool());

  describe("entry names", () => {
    it("resolves paths as JSZip does, with backslashes as separators", () => {
      expect(entryPath("word/document.xml")).to.equal("word/document.xml");
      expect(entryPath("./word/document.xml")).to.equal("word/document.xml");
      expect(entryPath("word//./document.xml")).to.equal("word/document.xml");
      expect(entryPath("word\\document.xml")).to.equal("word/document.xml");
      expect(entryPath("media/../word/document.xml")).to.equal("word/document.xml");
      expect(entryPath("word/")).to.equal("word/");
    });

    it("gives case, Unicode-form and compatibility variants one key, and different parts different keys", () => {
      const same = ["word/document.xml", "Word/Document.XML", "/word/document.xml", "ｗord/document.xml"];
      expect(new Set(same.map(collisionKey)).size).to.equal(1);
      expect(collisionKey("word/media/cafe\u0301.xml")).to.equal(collisionKey("word/media/caf\u00e9.xml"));
      expect(collisionKey("ppt/slides/slide1.xml")).to.not.equal(collisionKey("ppt/slides/slide2.xml"));
      expect(collisionKey("word/document.xml")).to.not.equal(collisionKey("word/document2.xml"));
    });
  });

  describe("refused before anything is inflated", () => {
    // The first word/document.xml is not deflate data: had anything been inflated before the
    // names were compared, the file would fail as corrupt, not as ambiguous.
    const variants = ["word/document.xml", "Word/Document.xml", "./word/document.xml", "word\\document.xml", "word//document.xml", "ｗord/document.xml"];
    for (const duplicateName of variants) {
      it(`a DOCX with word/document.xml and "${duplicateName}"`, async () => {
        const error = await refusal(readInThread(docxWithDuplicate({ duplicateName, corruptFirst: true }), "docx"));
        expect(error.code).to.equal("EXTRACTION_AMBIGUOUS_ARCHIVE");
        expect(error.message).to.match(/word\/document\.xml/);
        expect(error.message).to.match(/refused before anything in it was unpacked/);
      });
    }

    it("a DOCX whose duplicate word/document.xml declares 1 kB and inflates to 1 GB", async () => {
      const error = await refusal(readInThread(docxWithDuplicate({ bomb: true }), "docx"));
      expect(error.code).to.equal("EXTRACTION_AMBIGUOUS_ARCHIVE");
      expect(error.message).to.match(/two parts named "word\/document\.xml"/);
    });

    it("a PPTX with a slide and a case variant of it", async () => {
      const error = await refusal(readInThread(pptxWithDuplicate("ppt/slides/Slide1.xml", "Shown.", "Hidden."), "pptx"));
      expect(error.code).to.equal("EXTRACTION_AMBIGUOUS_ARCHIVE");
      expect(error.message).to.match(/"ppt\/slides\/slide1\.xml" and "ppt\/slides\/Slide1\.xml"/);
    });
  });

  describe("entries the directory does not list never reach mammoth", () => {
    for (const trick of ["local-name", "past-count"] as const) {
      it(`${trick}: the measured word/document.xml is what is read`, async () => {
        const document = await readInThread(docxWithHiddenEntry(trick, "The measured text.", "Text nobody measured."), "docx");
        expect(document.fullText).to.contain("The measured text.");
        expect(document.fullText).to.not.contain("nobody measured");
      });
    }

    it("an ordinary Word file still reads the same through the re-written archive", async () => {
      const docx = await makeDocx([
        { heading: "Returns", body: "Customers have 30 days to return an item." },
        { heading: "Café policy", body: "Coffee is free on Fridays." },
      ]);
      const document = await readInThread(docx, "docx");
      expect(document.sections.map((section) => section.heading)).to.deep.equal(["Returns", "Café policy"]);
      expect(document.fullText).to.contain("30 days");
    });
  });
});
