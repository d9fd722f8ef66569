/** The lists of accepted document formats people read are the ones the code accepts (lib/document-formats.ts). */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { ALLOWED_EXTENSIONS, DOCUMENT_FORMATS, MIME_TYPES, UPLOAD_FORMATS_TEXT, formatFromFilename } from "../../../lib/document-formats";
import { FORMAT_LIST_FILES, renderFormatLists } from "../../../scripts/docs/document-formats";
import { buildOpenApiDocument } from "../../../server/openapi/document";
import { API_ROUTES } from "../../../server/routes/index";

describe("document format lists", () => {
  for (const path of FORMAT_LIST_FILES) {
    const name = path.slice(path.lastIndexOf("/docs/") >= 0 ? path.lastIndexOf("/docs/") + 1 : path.lastIndexOf("/") + 1);
    it(`${name} lists the accepted formats as lib/document-formats.ts has them`, () => {
      const markdown = readFileSync(path, "utf8");
      expect(markdown, `${name} has no generated format list`).to.include("<!-- formats -->");
      expect(markdown, `${name} is stale: run npm run docs:config`).to.equal(renderFormatLists(markdown));
      expect(markdown).to.include(`<!-- formats -->${UPLOAD_FORMATS_TEXT}<!-- /formats -->`);
    });
  }

  it("names every format once, in the OpenAPI upload route too", () => {
    const labels = Object.values(DOCUMENT_FORMATS).map((format) => format.label);
    expect(UPLOAD_FORMATS_TEXT.split(", ")).to.deep.equal(labels);
    const doc = buildOpenApiDocument(API_ROUTES) as { paths: Record<string, Record<string, { summary: string }>> };
    expect(doc.paths["/api/v1/documents"]!.post!.summary).to.include(UPLOAD_FORMATS_TEXT);
  });

  it("the web client's refusal falls back to the same list", () => {
    const source = readFileSync(new URL("../../../web/src/lib/errors.ts", import.meta.url), "utf8");
    expect(source).to.match(/import \{ UPLOAD_FORMATS_TEXT \} from "\.\.\/\.\.\/\.\.\/lib\/document-formats"/);
    expect(source, "no hand-written list of formats").to.not.match(/PDF, DOCX/);
  });

  it("derives extensions and MIME types from the one table, and reads every extension back to its format", () => {
    for (const [format, spec] of Object.entries(DOCUMENT_FORMATS)) {
      expect(MIME_TYPES[format as keyof typeof MIME_TYPES]).to.equal(spec.mime);
      for (const extension of spec.extensions) {
        expect(ALLOWED_EXTENSIONS).to.include(extension);
        expect(formatFromFilename(`Handbook${extension.toUpperCase()}`), extension).to.equal(format);
      }
    }
    expect(formatFromFilename(".pdf"), "a dotfile has no extension").to.equal(null);
    expect(formatFromFilename("dir.pdf/notes"), "a dot in a folder name is not an extension").to.equal(null);
    expect(formatFromFilename("report.pdf.exe")).to.equal(null);
  });
});
