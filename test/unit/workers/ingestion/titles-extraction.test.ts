import { expect } from "chai";
import { Document, HeadingLevel, Packer, Paragraph } from "docx";
import PDFDocument from "pdfkit";
import { extractDocument } from "../../../../workers/ingestion/extract";
import { chunkDocument } from "../../../../workers/ingestion/chunking";
import { makeHtml, makePdf, makePptx } from "../../../support/document-fixtures";

/** A PDF with a running header on every page and numbered headings in the middle of pages. */
async function manualPdf(info: { Title?: string }): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false, info });
  const parts: Buffer[] = [];
  doc.on("data", (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve) => doc.on("end", () => resolve()));
  const page = (lines: Array<[number, string]>) => {
    doc.addPage();
    doc.fontSize(12).text("Widget Manual");
    for (const [size, text] of lines) doc.fontSize(size).text(text).moveDown();
  };
  page([
    [20, "1. Getting started"],
    [11, "Unpack the widget carefully and keep the box."],
    [16, "2. Connections and Authentication"],
    [11, "Connect the widget with the blue cable only."],
  ]);
  page([
    [11, "Authentication uses the code printed under the lid."],
    [11, "Never share that code with anyone."],
  ]);
  page([
    [16, "3. Cleaning"],
    [11, "Wipe the widget with a dry cloth once a week."],
  ]);
  doc.end();
  await finished;
  return Buffer.concat(parts);
}

describe("document titles and headings as extracted", () => {
  it("HTML: the head's <title>, else the first h1; sections at every heading level", async () => {
    const titled = await extractDocument(makeHtml([{ heading: "Refunds", body: "Refunds take five days." }], "20.3. Connections and Authentication"), "html");
    expect(titled.title).to.equal("20.3. Connections and Authentication");
    const untitled = await extractDocument(
      Buffer.from("<html><body><nav>Up</nav><h1>Parking Policy</h1><p>Intro.</p><h4>2.3.1 Visitors</h4><p>Visitors park in zone B.</p></body></html>"),
      "html",
    );
    expect(untitled.title).to.equal("Parking Policy");
    const visitors = chunkDocument(untitled, { strategy: "recursive", chunkTokens: 200, overlapTokens: 0 }).find((chunk) => chunk.content.includes("zone B"));
    expect(visitors?.heading).to.equal("2.3.1 Visitors");
  });

  it("Markdown: the first # heading as title; every chunk carries its heading path, comments dropped", async () => {
    const doc = await extractDocument(
      Buffer.from("<!-- YAML\nadded: v1\n-->\n# Timers\n\nIntro text.\n\n## Class: Timeout\n\n### timeout.ref()\n\nKeeps the loop alive.\n"),
      "markdown",
    );
    expect(doc.title).to.equal("Timers");
    expect(doc.fullText).to.not.include("YAML");
    const chunk = chunkDocument(doc, { strategy: "recursive", chunkTokens: 200, overlapTokens: 0 }).find((c) => c.content.includes("loop alive"));
    expect(chunk?.heading).to.equal("Timers > Class: Timeout > timeout.ref()");
    const headless = await extractDocument(Buffer.from("## Instalación\n\nnpm install biome\n"), "markdown");
    expect(headless.title, "no # heading: known by its file name").to.equal(null);
  });

  it("PDF: metadata title, else the first heading; numbered headings cut pages, carry over, running header dropped", async () => {
    const fromMetadata = await extractDocument(await manualPdf({ Title: "Widget Manual, 2nd edition" }), "pdf");
    expect(fromMetadata.title).to.equal("Widget Manual, 2nd edition");
    const doc = await extractDocument(await manualPdf({}), "pdf");
    expect(doc.title, "no metadata: the running header names it").to.equal("Widget Manual");
    const headingOf = (text: string) => doc.sections.find((s) => s.text.includes(text));
    expect(headingOf("blue cable")?.heading).to.equal("2. Connections and Authentication");
    expect(headingOf("printed under the lid")).to.include({ heading: "2. Connections and Authentication", pageStart: 2 });
    expect(headingOf("dry cloth")?.heading).to.equal("3. Cleaning");
    expect(doc.fullText, "running header dropped from the text").to.not.include("Widget Manual");
    const simple = await extractDocument(await makePdf([{ heading: "Overview", body: "General overview." }]), "pdf");
    expect(simple.title).to.equal("Test document");
    const bare = new PDFDocument({ autoFirstPage: false });
    const parts: Buffer[] = [];
    bare.on("data", (part: Buffer) => parts.push(part));
    const ended = new Promise<void>((resolve) => bare.on("end", () => resolve()));
    bare.addPage().fontSize(20).text("Quarterly Report").moveDown().fontSize(11).text("Sales grew in every region this quarter.");
    bare.end();
    await ended;
    expect((await extractDocument(Buffer.concat(parts), "pdf")).title, "no metadata, no running header: first heading").to.equal("Quarterly Report");
  });

  it("DOCX: the core properties' title, else the first Heading 1; PPTX: its title, else the first slide's", async () => {
    const docx = (title?: string) =>
      Packer.toBuffer(
        new Document({
          ...(title ? { title } : {}),
          sections: [{ children: [new Paragraph({ text: "Safety Rules", heading: HeadingLevel.HEADING_1 }), new Paragraph("Wear gloves.")] }],
        }),
      );
    expect((await extractDocument(await docx("Warehouse Safety Handbook"), "docx")).title).to.equal("Warehouse Safety Handbook");
    expect((await extractDocument(await docx(), "docx")).title).to.equal("Safety Rules");
    const pptx = await extractDocument(await makePptx([{ title: "Forklift Basics", body: "Check the forks." }]), "pptx");
    expect(pptx.title).to.be.a("string").and.not.equal("");
  });
});
