/** Splitting a bulk import's file: lines, their numbers, the order records are applied in, and the lines refused at once. */
import { expect } from "chai";
import { IMPORT_LINE_MAX_BYTES, splitImportBody } from "../../lib/catalog-import-file";

const ndjson = (...lines: string[]) => Buffer.from(lines.join("\n"));
const typesOf = (lines: Array<{ text: string }>) =>
  lines.map((l) => {
    const { type, op } = JSON.parse(l.text);
    return op === "delete" ? `-${type}` : type;
  });

describe("splitImportBody", () => {
  it("orders parents before children and deletes after upserts, children first, keeping the file's order within a rank", () => {
    const split = splitImportBody(
      ndjson(
        '{"type":"enrollment","n":1}',
        '{"type":"course","op":"delete","external_id":"old"}',
        '{"type":"lesson","n":2}',
        '{"type":"lesson","op":"delete","external_id":"x"}',
        '{"type":"course","n":3}',
        '{"type":"skill_category"}',
        '{"type":"lesson","n":4}',
      ),
      "ndjson",
    );
    expect(split.ok).to.equal(true);
    if (!split.ok) return;
    expect(typesOf(split.lines)).to.deep.equal(["skill_category", "course", "lesson", "lesson", "enrollment", "-lesson", "-course"]);
    expect(split.lines.filter((l) => l.text.includes('"lesson","n"')).map((l) => l.line)).to.deep.equal([3, 7]);
  });

  it("numbers lines as the file does (blank lines, CRLF, a BOM), and refuses broken JSON and oversized lines by number", () => {
    const big = `{"type":"lesson","content":"${"x".repeat(IMPORT_LINE_MAX_BYTES)}"}`;
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(['{"type":"course"}\r', "", "{oops", big, '{"type":"nothing"}', ""].join("\n"))]);
    const split = splitImportBody(body, "ndjson");
    if (!split.ok) throw new Error("expected a split");
    expect(split.lines.map((l) => [l.line, l.text])).to.deep.equal([
      [5, '{"type":"nothing"}'],
      [1, '{"type":"course"}'],
    ]);
    expect(split.problems.map((p) => [p.line, p.code])).to.deep.equal([
      [3, "INVALID_JSON"],
      [4, "RECORD_TOO_LARGE"],
    ]);
  });

  it("reads a JSON array or {records: [...]}, numbering records from 1, and refuses anything else whole", () => {
    const array = splitImportBody(Buffer.from('[{"type":"lesson"},{"type":"course"}]'), "json");
    if (!array.ok) throw new Error("expected a split");
    expect(array.lines.map((l) => l.line)).to.deep.equal([2, 1]);
    const wrapped = splitImportBody(Buffer.from('{"records":[{"type":"skill"}]}'), "json");
    expect(wrapped.ok && wrapped.lines.length).to.equal(1);
    const object = splitImportBody(Buffer.from('{"type":"course"}'), "json");
    expect(object).to.deep.include({ ok: false });
    const broken = splitImportBody(Buffer.from('[{"type":'), "json");
    expect(broken.ok).to.equal(false);
    if (!broken.ok) expect(broken.message).to.match(/not valid JSON/);
  });

  it("an empty file has no records and no problems", () => {
    expect(splitImportBody(Buffer.alloc(0), "ndjson")).to.deep.equal({ ok: true, lines: [], problems: [] });
  });
});
