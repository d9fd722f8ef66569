/**
 * Splitting a bulk import's file: lines, their numbers, the order records are applied in, the
 * lines refused at once (each record is checked whole: JSON, depth, NUL, fields), and the bounds
 * that keep a hostile file small (records read, problems kept, the rest counted per code).
 */
import { expect } from "chai";
import { IMPORT_LINE_MAX_BYTES, RECORD_MAX_DEPTH, splitImportBody } from "../../../lib/catalog-import-file";
import { PackedLines, packSplit } from "../../../lib/catalog-import-packed";
import { IMPORT_MAX_RECORDS, IMPORT_PROBLEMS_KEPT } from "../../../lib/catalog-import-problems";

const ndjson = (...lines: string[]) => Buffer.from(lines.join("\n"));
const typesOf = (lines: Array<{ text: string }>) =>
  lines.map((l) => {
    const { type, op } = JSON.parse(l.text);
    return op === "delete" ? `-${type}` : type;
  });
const record = {
  category: (id: string) => JSON.stringify({ type: "skill_category", external_id: id, name: "Safety" }),
  course: (id: string) => JSON.stringify({ type: "course", external_id: id, title: "Course", language: "en" }),
  lesson: (id: string) => JSON.stringify({ type: "lesson", external_id: id, module: "m1", title: "Lesson", content: "text", position: 1 }),
  enrollment: (course: string) => JSON.stringify({ type: "enrollment", person: { external_id: "hr-1" }, course, status: "in_progress" }),
  remove: (type: string, id: string) => JSON.stringify({ type, op: "delete", external_id: id }),
};

function split(body: Buffer, format: "ndjson" | "json" = "ndjson") {
  const result = splitImportBody(body, format);
  if (!result.ok) throw new Error(`expected a split, got ${result.message}`);
  return result;
}

describe("splitImportBody", () => {
  it("orders parents before children and deletes after upserts, children first, keeping the file's order within a rank", () => {
    const result = split(
      ndjson(
        record.enrollment("c1"),
        record.remove("course", "old"),
        record.lesson("l2"),
        record.remove("lesson", "x"),
        record.course("c3"),
        record.category("k"),
        record.lesson("l4"),
      ),
    );
    expect(typesOf(result.lines)).to.deep.equal(["skill_category", "course", "lesson", "lesson", "enrollment", "-lesson", "-course"]);
    expect(result.lines.filter((l) => l.text.includes('"type":"lesson","external_id":"l')).map((l) => l.line)).to.deep.equal([3, 7]);
    expect(result.total).to.equal(7);
  });

  it("numbers lines as the file does (blank lines, CRLF, a BOM), and refuses broken JSON, oversized lines and invalid records by number", () => {
    const big = `{"type":"lesson","content":"${"x".repeat(IMPORT_LINE_MAX_BYTES)}"}`;
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from([`${record.course("c1")}\r`, "  ", "{oops", big, '{"type":"nothing"}', "x", record.category("k"), ""].join("\n")),
    ]);
    const result = split(body);
    expect(result.lines.map((l) => [l.line, l.text])).to.deep.equal([
      [7, record.category("k")],
      [1, record.course("c1")],
    ]);
    expect(result.problems.map((p) => [p.line, p.code])).to.deep.equal([
      [3, "INVALID_JSON"],
      [4, "RECORD_TOO_LARGE"],
      [5, "UNKNOWN_TYPE"],
      [6, "INVALID_JSON"],
    ]);
    expect(result).to.deep.include({ total: 6, omitted: {} });
  });

  it("refuses a record holding a NUL character, or nested too deep, alone, with its line", () => {
    const nul = '{"type":"skill_category","external_id":"c1","name":"a\\u0000b"}';
    const deep = `{"type":"exercise","external_id":"e1","lesson":"l1","prompt":"p","kind":"k","answer":${"[".repeat(RECORD_MAX_DEPTH + 5)}${"]".repeat(RECORD_MAX_DEPTH + 5)}}`;
    const unclosed = `{"type":"exercise","answer":${"[".repeat(100_000)}`;
    const result = split(ndjson(record.category("ok-1"), nul, deep, unclosed, record.category("ok-2")));
    expect(result.lines.map((l) => l.line)).to.deep.equal([1, 5]);
    expect(result.problems).to.deep.equal([
      { line: 2, code: "INVALID_RECORD", message: "name: must not contain NUL characters (\\u0000)" },
      { line: 3, code: "INVALID_RECORD", message: `the record is nested more than ${RECORD_MAX_DEPTH} levels deep` },
      { line: 4, code: "INVALID_JSON", message: "the line is not a JSON object (one record per line)" },
    ]);
    const json = split(Buffer.from(`[${record.category("j1")},${deep},{"type":"skill","external_id":"s\\u0000","name":"n"}]`), "json");
    expect(json.lines.map((l) => l.line)).to.deep.equal([1]);
    expect(json.problems.map((p) => [p.line, p.code])).to.deep.equal([
      [2, "INVALID_RECORD"],
      [3, "INVALID_RECORD"],
    ]);
  });

  it("reads at most IMPORT_MAX_RECORDS records; every line past them is refused TOO_MANY_RECORDS, counted once the kept problems are full", () => {
    const lines = Array.from({ length: IMPORT_MAX_RECORDS + 2_500 }, (_, i) => record.category(`k${i}`));
    const result = split(Buffer.from(lines.join("\n")));
    expect(result.lines).to.have.length(IMPORT_MAX_RECORDS);
    expect(result.total).to.equal(IMPORT_MAX_RECORDS + 2_500);
    expect(result.problems).to.have.length(IMPORT_PROBLEMS_KEPT);
    expect(result.problems[0]).to.include({ line: IMPORT_MAX_RECORDS + 1, code: "TOO_MANY_RECORDS" });
    expect(result.omitted).to.deep.equal({ TOO_MANY_RECORDS: 1_500 });
  });

  it("a hostile file of 2-byte lines keeps IMPORT_PROBLEMS_KEPT problems and counts the rest per code", () => {
    const lines = 4 * IMPORT_MAX_RECORDS;
    const result = split(Buffer.from("x\n".repeat(lines)));
    expect(result.lines).to.have.length(0);
    expect(result.total).to.equal(lines);
    expect(result.problems).to.have.length(IMPORT_PROBLEMS_KEPT);
    expect(result.problems.at(-1)).to.include({ line: IMPORT_PROBLEMS_KEPT, code: "INVALID_JSON" });
    expect(result.omitted).to.deep.equal({ INVALID_JSON: IMPORT_MAX_RECORDS - IMPORT_PROBLEMS_KEPT, TOO_MANY_RECORDS: lines - IMPORT_MAX_RECORDS });
  });

  it("a huge JSON array counts what it does not read without a loop over it", () => {
    const count = IMPORT_MAX_RECORDS * 3;
    const result = split(Buffer.from(`[${"1,".repeat(count - 1)}1]`), "json");
    expect(result.total).to.equal(count);
    expect(result.problems).to.have.length(IMPORT_PROBLEMS_KEPT);
    expect(result.omitted).to.deep.equal({ INVALID_RECORD: IMPORT_MAX_RECORDS - IMPORT_PROBLEMS_KEPT, TOO_MANY_RECORDS: count - IMPORT_MAX_RECORDS });
  });

  it("reads a JSON array or {records: [...]}, numbering records from 1, and refuses anything else whole", () => {
    const array = split(Buffer.from(`[${record.lesson("l1")},${record.course("c1")}]`), "json");
    expect(array.lines.map((l) => l.line)).to.deep.equal([2, 1]);
    const wrapped = split(Buffer.from(`{"records":[${record.category("k")}]}`), "json");
    expect(wrapped.lines.length).to.equal(1);
    const object = splitImportBody(Buffer.from('{"type":"course"}'), "json");
    expect(object).to.deep.include({ ok: false });
    const broken = splitImportBody(Buffer.from('[{"type":'), "json");
    expect(broken.ok).to.equal(false);
    if (!broken.ok) expect(broken.message).to.match(/not valid JSON/);
  });

  it("an empty file has no records and no problems", () => {
    expect(splitImportBody(Buffer.alloc(0), "ndjson")).to.deep.equal({ ok: true, lines: [], problems: [], omitted: {}, total: 0 });
  });

  it("packs the records into one string and their places, and reads them back a slice at a time", () => {
    const result = split(ndjson(record.course("c1"), "", record.category("ñandú"), record.lesson("l1")));
    const packed = packSplit(result);
    if (!packed.ok) throw new Error("expected a packed split");
    const lines = new PackedLines(packed.text, packed.places);
    expect(lines.count).to.equal(3);
    expect([...lines.slice(0, 2), ...lines.slice(2, 10)]).to.deep.equal(result.lines);
  });
});
