/** extractDocument against real files: sections, headings and page numbers per format, readable failures. */
import { expect } from "chai";
import PDFDocument from "pdfkit";
import { extractDocument, ExtractionError } from "../../../../workers/ingestion/extract";
import { corruptPdf, makeCsv, makeDocx, makeHtml, makeMarkdown, makePdf, makePptx, makeTxt } from "../../../support/document-fixtures";

async function failure(promise: Promise<unknown>): Promise<ExtractionError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ExtractionError);
    return error as ExtractionError;
  }
  throw new Error("expected extraction to fail");
}

/** A readable reason: a sentence, not a class name or a stack. */
function expectReadable(error: ExtractionError, pattern: RegExp): void {
  expect(error.message).to.match(pattern);
  expect(error.message).to.not.match(/Exception|\bat .*:\d+|TypeError|undefined/);
}

describe("extractDocument", () => {
  describe("PDF", () => {
    it("makes one section per page with its page number and the large first line as heading", async () => {
      const bytes = await makePdf([
        { heading: "Overview", body: "General overview of the policy." },
        { heading: "Parking Rules", body: "Visitors park in zone marigold only." },
      ]);
      const doc = await extractDocument(bytes, "pdf");
      expect(doc.format).to.equal("pdf");
      expect(doc.pageCount).to.equal(2);
      expect(doc.sections).to.deep.equal([
        { heading: "Overview", text: "General overview of the policy.", pageStart: 1, pageEnd: 1 },
        { heading: "Parking Rules", text: "Visitors park in zone marigold only.", pageStart: 2, pageEnd: 2 },
      ]);
      expect(doc.fullText).to.equal("Overview\n\nGeneral overview of the policy.\n\nParking Rules\n\nVisitors park in zone marigold only.");
    });

    it("keeps paragraph gaps as blank lines and gives no heading to a page set in one size", async () => {
      const doc = await extractDocument(await makePdf([{ heading: "Leave", body: "First paragraph.\n\nSecond paragraph." }]), "pdf");
      expect(doc.sections[0]!.text).to.equal("First paragraph.\n\nSecond paragraph.");

      const plain = new PDFDocument();
      const parts: Buffer[] = [];
      plain.on("data", (part: Buffer) => parts.push(part));
      const ended = new Promise((resolve) => plain.on("end", resolve));
      plain.fontSize(12).text("Short line").text("Another line of ordinary body text.");
      plain.end();
      await ended;
      const [section] = (await extractDocument(Buffer.concat(parts), "pdf")).sections;
      expect(section).to.deep.include({ heading: null, pageStart: 1 });
      expect(section!.text).to.equal("Short line\nAnother line of ordinary body text.");
    });

    it("reports a corrupt PDF with a readable reason", async () => {
      const error = await failure(extractDocument(corruptPdf(), "pdf"));
      expectReadable(error, /The PDF is corrupt or encrypted and could not be read/);
      expect(error.cause).to.be.instanceOf(Error);
    });

    it("reports a PDF without text (a scan) as having no extractable text", async () => {
      const scan = new PDFDocument();
      const parts: Buffer[] = [];
      scan.on("data", (part: Buffer) => parts.push(part));
      const ended = new Promise((resolve) => scan.on("end", resolve));
      scan.rect(50, 50, 200, 200).fill("#333");
      scan.end();
      await ended;
      expectReadable(await failure(extractDocument(Buffer.concat(parts), "pdf")), /no extractable text/);
    });
  });

  describe("DOCX", () => {
    it("cuts sections at Word headings", async () => {
      const bytes = await makeDocx([
        { heading: "Holidays", body: "Staff receive 25 paid days.\n\nCarry-over ends in March." },
        { heading: "Sick Leave", body: "Report by 9am." },
      ]);
      const doc = await extractDocument(bytes, "docx");
      expect(doc.pageCount).to.equal(null);
      expect(doc.sections).to.deep.equal([
        { heading: "Holidays", text: "Staff receive 25 paid days.\n\nCarry-over ends in March.", pageStart: null, pageEnd: null },
        { heading: "Sick Leave", text: "Report by 9am.", pageStart: null, pageEnd: null },
      ]);
      expect(doc.fullText).to.include("Holidays\n\nStaff receive 25 paid days.");
    });

    it("reports a corrupt Word file with a readable reason", async () => {
      const docx = await makeDocx([{ heading: "A", body: "B" }]);
      expectReadable(await failure(extractDocument(docx.subarray(0, 300), "docx")), /Word document is corrupt/);
    });
  });

  describe("PPTX", () => {
    it("makes one section per slide with the slide title as heading and the slide number as page", async () => {
      const bytes = await makePptx([
        { title: "Welcome", body: "Hello team." },
        { title: "Safety First", body: "Helmets are mandatory.\nFish & chips <3 on Fridays." },
      ]);
      const doc = await extractDocument(bytes, "pptx");
      expect(doc.pageCount).to.equal(2);
      expect(doc.sections).to.deep.equal([
        { heading: "Welcome", text: "Hello team.", pageStart: 1, pageEnd: 1 },
        { heading: "Safety First", text: "Helmets are mandatory.\nFish & chips <3 on Fridays.", pageStart: 2, pageEnd: 2 },
      ]);
    });

    it("reports a corrupt presentation with a readable reason", async () => {
      expectReadable(await failure(extractDocument(Buffer.from("PK\x03\x04 not really a zip"), "pptx")), /PowerPoint file is corrupt/);
    });
  });

  describe("HTML", () => {
    it("cuts sections at h1–h3 and ignores scripts, styles and the head", async () => {
      const doc = await extractDocument(
        makeHtml([
          { heading: "Lockers", body: "Lockers open with a token." },
          { heading: "Desks", body: "Hot-desking & booking <free>." },
        ]),
        "html",
      );
      expect(doc.sections.map((s) => s.heading)).to.deep.equal(["Lockers", "Desks"]);
      expect(doc.sections[1]!.text).to.equal("Hot-desking & booking <free>.");
      expect(doc.fullText).to.not.match(/not content|color|Test page|doctype/i);
    });

    it("keeps lead-in text, lists, tables and preformatted whitespace; cuts a section at every heading level", async () => {
      const html = `<p>Intro &amp; welcome</p><h1>Benefits</h1><h4>Health</h4><ul><li>Dental</li><li>Vision <b>plus</b></li></ul>
        <table><tr><th>Plan</th><th>Cost</th></tr><tr><td>Basic</td><td>0</td></tr></table><pre>a  b\n  c</pre>`;
      const doc = await extractDocument(Buffer.from(html), "html");
      expect(doc.sections).to.deep.equal([
        { heading: null, text: "Intro & welcome", pageStart: null, pageEnd: null },
        { heading: "Benefits", text: "", pageStart: null, pageEnd: null },
        { heading: "Health", text: "- Dental\n- Vision plus\n\nPlan | Cost\nBasic | 0\n\na  b\n  c", pageStart: null, pageEnd: null },
      ]);
    });
  });

  describe("Markdown", () => {
    it("cuts sections at every heading, named by their heading path, leaving code fences alone", async () => {
      const body = "Keep receipts.\n\n## Receipts\n\nPaper or digital.\n\n```sh\n# not a heading\n```";
      const doc = await extractDocument(
        Buffer.concat([
          Buffer.from("Lead-in line.\n\n"),
          makeMarkdown([
            { heading: "Returns", body },
            { heading: "Refunds", body: "Within 5 days." },
          ]),
        ]),
        "markdown",
      );
      expect(doc.sections).to.deep.equal([
        { heading: null, text: "Lead-in line.", pageStart: null, pageEnd: null },
        { heading: "Returns", text: "Keep receipts.", pageStart: null, pageEnd: null },
        { heading: "Returns > Receipts", text: "Paper or digital.\n\n```sh\n# not a heading\n```", pageStart: null, pageEnd: null },
        { heading: "Refunds", text: "Within 5 days.", pageStart: null, pageEnd: null },
      ]);
      expect(doc.title).to.equal("Returns");
    });
  });

  describe("CSV", () => {
    it("writes rows as 'column: value' lines, handling quotes, embedded commas and newlines", async () => {
      const doc = await extractDocument(
        makeCsv(
          ["store", "manager", "notes"],
          [
            ["Lisbon", 'Rita "R" Silva', "open, late\nthursdays"],
            ["Porto", "", "closed"],
          ],
        ),
        "csv",
      );
      expect(doc.sections).to.have.length(1);
      expect(doc.sections[0]!.text).to.equal(
        'Columns: store, manager, notes\n\nstore: Lisbon; manager: Rita "R" Silva; notes: open, late thursdays\nstore: Porto; notes: closed',
      );
    });

    it("reads semicolon-separated exports", async () => {
      const doc = await extractDocument(Buffer.from("city;price\nBerlin;3,50\n"), "csv");
      expect(doc.fullText).to.include("city: Berlin; price: 3,50");
    });

    it("reads mixed line endings, ragged rows and quotes inside unquoted fields; refuses an unterminated quote", async () => {
      const doc = await extractDocument(Buffer.from('item,size\r\nscreen,5" wide\rcable\n\n,\nlamp,small,extra\n'), "csv");
      expect(doc.sections[0]!.text).to.equal('Columns: item, size\n\nitem: screen; size: 5" wide\nitem: cable\nitem: lamp; size: small; column 3: extra');
      expectReadable(await failure(extractDocument(Buffer.from('item,size\n"screen,5\n'), "csv")), /unterminated quoted field/);
    });

    it('reads a quoted field written after a space (`a, "b, c"`) as one field, as spreadsheets export it', async () => {
      const doc = await extractDocument(Buffer.from('name, full name, age\nann, "Smith, John", 42\n'), "csv");
      expect(doc.sections[0]!.text).to.equal("Columns: name, full name, age\n\nname: ann; full name: Smith, John; age: 42");
    });
  });

  describe("text", () => {
    it("keeps plain text as one section", async () => {
      const doc = await extractDocument(makeTxt("The coffee code is 1234.\r\n\r\n\r\nBring a mug."), "txt");
      expect(doc.sections).to.deep.equal([{ heading: null, text: "The coffee code is 1234.\n\nBring a mug.", pageStart: null, pageEnd: null }]);
      expect(doc.pageCount).to.equal(null);
    });

    it("refuses whitespace-only documents and invalid UTF-8", async () => {
      for (const format of ["txt", "markdown", "html", "csv"] as const) {
        expectReadable(await failure(extractDocument(Buffer.from("  \n\t\n  "), format)), /no extractable text/);
      }
      expectReadable(await failure(extractDocument(Buffer.from("<p>  </p><script>x()</script>"), "html")), /no extractable text/);
      expectReadable(await failure(extractDocument(Buffer.from("caf\xe9", "latin1"), "txt")), /not valid UTF-8/);
    });
  });
});
