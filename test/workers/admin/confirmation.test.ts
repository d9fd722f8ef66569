/**
 * Issue 30, point 1: a reply confirms a pending action only when it is plainly and only a
 * confirmation. The cases are the table of docs/confirmation-replies.md (the rule's
 * specification, read by people and by this test alike): every row is run through the rule.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { classifyReply, type ReplyKind } from "../../../workers/admin/confirmation";

const SPEC = "docs/confirmation-replies.md";
const KINDS: readonly ReplyKind[] = ["confirm", "reject", "question", "unclear", "new_request"];

interface Row {
  reply: string;
  language: string;
  expected: ReplyKind;
  why: string;
}

/** The rows of the table whose header starts with "| Reply |": `reply` | language | expected | why. */
function specRows(markdown: string): Row[] {
  const lines = markdown.split("\n");
  const header = lines.findIndex((line) => line.startsWith("| Reply |"));
  if (header < 0) throw new Error(`${SPEC} has no "| Reply |" table`);
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    const [quoted, language, expected, why] = cells;
    if (cells.length !== 4 || !quoted?.startsWith("`") || !quoted.endsWith("`")) throw new Error(`malformed row in ${SPEC}: ${line}`);
    if (!KINDS.includes(expected as ReplyKind)) throw new Error(`unknown outcome "${expected}" in ${SPEC}: ${line}`);
    rows.push({ reply: quoted.slice(1, -1), language: language!, expected: expected as ReplyKind, why: why! });
  }
  return rows;
}

const rows = specRows(readFileSync(SPEC, "utf8"));

describe("the confirmation rule (docs/confirmation-replies.md)", () => {
  it("is specified by at least 60 real replies in English and Spanish, each outcome represented", () => {
    expect(rows.length).to.be.at.least(60);
    expect(new Set(rows.map((row) => row.reply)).size).to.equal(rows.length, "no reply is listed twice");
    for (const language of ["en", "es"]) expect(rows.filter((row) => row.language === language).length, language).to.be.at.least(25);
    for (const kind of KINDS)
      expect(
        rows.some((row) => row.expected === kind),
        kind,
      ).to.equal(true);
  });

  for (const row of rows) {
    it(`${JSON.stringify(row.reply)} → ${row.expected} (${row.why})`, () => {
      expect(classifyReply(row.reply)).to.equal(row.expected);
    });
  }

  it("never confirms or rejects a reply with a question mark", () => {
    for (const row of rows.filter((r) => /[?¿]/.test(r.reply))) expect(classifyReply(row.reply), row.reply).to.equal("question");
  });

  it("confirms nothing that only contains a yes among other words, however it is spelt", () => {
    for (const word of ["yes", "sí", "si", "ok", "sure", "go", "vale", "claro", "dale", "adelante"]) {
      for (const around of [`${word} if needed`, `not ${word}`, `${word} but later`, `${word} maybe`, `${word} to Sales`, `${word}?`, `¿${word}?`]) {
        expect(classifyReply(around), around).to.not.equal("confirm");
      }
    }
  });

  it("does not read a long reply as a plain one, however affirmative its words", () => {
    expect(classifyReply("yes ".repeat(50_000))).to.not.equal("confirm");
    expect(classifyReply(`yes${"!".repeat(100_000)}`)).to.not.equal("confirm");
    expect(classifyReply("no ".repeat(50_000))).to.not.equal("reject");
  });
});
