/** detectFormat: a file is accepted only when its extension is allowed AND its bytes agree. */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { detectFormat } from "../../../lib/detect-document-format";
import { ALLOWED_EXTENSIONS, DOCUMENT_FORMATS, type DocumentFormat, type FormatSpec, MIME_TYPES } from "../../../lib/document-formats";
import { corruptPdf, fakeExe, makeCsv, makeDocx, makeHtml, makeMarkdown, makePdf, makePptx, makeTxt } from "../../support/document-fixtures";

const SECTIONS = [{ heading: "Returns", body: "Items can be returned within thirty days." }];

describe("detectFormat", () => {
  let pdf: Buffer;
  let docx: Buffer;
  let pptx: Buffer;

  before(async () => {
    pdf = await makePdf(SECTIONS);
    docx = await makeDocx(SECTIONS);
    pptx = await makePptx([{ title: "Returns", body: "Thirty days." }]);
  });

  it("accepts each real file under its own extension", async () => {
    const cases: [Buffer, string, DocumentFormat][] = [
      [pdf, "policy.pdf", "pdf"],
      [docx, "handbook.docx", "docx"],
      [pptx, "deck.pptx", "pptx"],
      [makeHtml(SECTIONS), "page.html", "html"],
      [makeHtml(SECTIONS), "page.htm", "html"],
      [makeMarkdown(SECTIONS), "guide.md", "markdown"],
      [makeMarkdown(SECTIONS), "guide.markdown", "markdown"],
      [makeCsv(["store", "manager"], [["Lisbon", "Rita"]]), "stores.csv", "csv"],
      [makeTxt("Plain notes, café, 日本語 and emoji 🎉."), "notes.txt", "txt"],
    ];
    for (const [bytes, name, format] of cases) expect(await detectFormat(bytes, name), name).to.equal(format);
  });

  it("ignores the case of the extension and accepts a UTF-8 byte-order mark", async () => {
    expect(await detectFormat(pdf, "POLICY.PDF")).to.equal("pdf");
    expect(await detectFormat(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), makeTxt("hello")]), "bom.TXT")).to.equal("txt");
  });

  it("accepts an empty text file (extraction reports that it has no text)", async () => {
    expect(await detectFormat(Buffer.alloc(0), "empty.txt")).to.equal("txt");
  });

  it("rejects an executable renamed .pdf", async () => {
    expect(await detectFormat(fakeExe(), "invoice.pdf")).to.equal(null);
    const exeWithPdfMarker = Buffer.concat([fakeExe().subarray(0, 200), Buffer.from("%PDF-1.7"), Buffer.alloc(100)]);
    expect(await detectFormat(exeWithPdfMarker, "invoice.pdf")).to.equal(null);
  });

  it("rejects a PDF renamed to a text format", async () => {
    for (const name of ["policy.txt", "policy.md", "policy.csv", "policy.html"]) expect(await detectFormat(pdf, name), name).to.equal(null);
  });

  it("rejects office files under the wrong office extension or as PDF", async () => {
    expect(await detectFormat(docx, "handbook.pptx")).to.equal(null);
    expect(await detectFormat(pptx, "deck.docx")).to.equal(null);
    expect(await detectFormat(docx, "handbook.pdf")).to.equal(null);
    expect(await detectFormat(pdf, "policy.docx")).to.equal(null);
  });

  it("rejects binary junk and non-UTF-8 text named .txt", async () => {
    const junk = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37) % 256));
    expect(await detectFormat(junk, "notes.txt")).to.equal(null);
    expect(await detectFormat(Buffer.from("caf\xe9 au lait", "latin1"), "latin1.txt")).to.equal(null);
    expect(await detectFormat(Buffer.from("hello", "utf16le"), "utf16.txt")).to.equal(null);
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    expect(await detectFormat(png, "image.md")).to.equal(null);
  });

  it("rejects unknown extensions whatever the content", async () => {
    expect(await detectFormat(makeTxt("hello"), "notes.rtf")).to.equal(null);
    expect(await detectFormat(makeTxt("hello"), "notes")).to.equal(null);
    expect(await detectFormat(fakeExe(), "setup.exe")).to.equal(null);
    expect(await detectFormat(pdf, "policy.pdf.exe")).to.equal(null);
  });

  it("accepts workbooks and images only when their bytes agree with the name", async () => {
    const read = (name: string) => readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url));
    const [xlsx, png, jpeg] = [read("site-rota.xlsx"), read("lost-property.png"), read("aviso-cocina.jpg")];
    expect(await detectFormat(xlsx, "rota.xlsx")).to.equal("xlsx");
    expect(await detectFormat(png, "notice.PNG")).to.equal("png");
    expect(await detectFormat(jpeg, "photo.jpg")).to.equal("jpeg");
    expect(await detectFormat(jpeg, "photo.jpeg")).to.equal("jpeg");
    for (const [bytes, name] of [
      [png, "notice.jpg"],
      [jpeg, "photo.png"],
      [png, "notice.pdf"],
      [xlsx, "rota.docx"],
      [docx, "handbook.xlsx"],
      [fakeExe(), "photo.png"],
      [fakeExe(), "rota.xlsx"],
    ] as const) {
      expect(await detectFormat(bytes, name), name).to.equal(null);
    }
  });

  it("still accepts a corrupt PDF by its header (extraction explains the problem)", async () => {
    expect(await detectFormat(corruptPdf(), "broken.pdf")).to.equal("pdf");
  });

  it("lists every accepted extension and a MIME type per format", () => {
    expect(ALLOWED_EXTENSIONS).to.include.members([
      ".pdf",
      ".docx",
      ".pptx",
      ".xlsx",
      ".txt",
      ".md",
      ".markdown",
      ".html",
      ".htm",
      ".csv",
      ".png",
      ".jpg",
      ".jpeg",
      ".doc",
      ".xls",
      ".tif",
      ".tiff",
      ".gif",
      ".webp",
    ]);
    expect(Object.keys(MIME_TYPES)).to.have.members([
      "pdf",
      "docx",
      "pptx",
      "xlsx",
      "doc",
      "xls",
      "txt",
      "markdown",
      "html",
      "csv",
      "png",
      "jpeg",
      "tiff",
      "gif",
      "webp",
    ]);
    expect(MIME_TYPES.doc).to.equal("application/msword");
    expect(MIME_TYPES.xls).to.equal("application/vnd.ms-excel");
    expect(MIME_TYPES.pdf).to.equal("application/pdf");
  });

  it("has no format that the bytes do not confirm: a binary format must state its check (type-checked by tsc)", () => {
    // @ts-expect-error a format without a content check does not compile
    const unchecked: FormatSpec = { label: "XLSX", extensions: [".xlsx"], mime: "application/vnd.ms-excel" };
    const checked: FormatSpec = { ...unchecked, content: { kind: "binary", confirms: (_bytes, detected) => detected?.ext === "xlsx" } };
    expect(checked.content.kind).to.equal("binary");
    for (const [format, spec] of Object.entries(DOCUMENT_FORMATS)) {
      expect(["text", "binary"], format).to.include(spec.content.kind);
    }
  });
});
