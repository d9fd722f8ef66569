/**
 * Issue 30, point 1: a reply confirms a pending action only when it is plainly and only a
 * confirmation. The cases are the table of docs/confirmation-replies.md (the rule's
 * specification, read by people and by this test alike): every row is run through the rule.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import type { AdminActionRow } from "../../../../db/queries/admin-actions";
import { classifyReply, isStopRequest, type ReplyKind } from "../../../../workers/admin/confirmation";
import { replies } from "../../../../workers/admin/replies";

const SPEC = "docs/confirmation-replies.md";
const KINDS: readonly ReplyKind[] = ["confirm", "reject", "question", "unclear", "new_request"];

interface Row<Expected extends string = ReplyKind> {
  reply: string;
  language: string;
  expected: Expected;
  why: string;
}

/** The rows of the table whose header starts with `heading`: `reply` | language | expected | why. */
function specRows<Expected extends string = ReplyKind>(markdown: string, heading = "| Reply |", kinds: readonly string[] = KINDS): Row<Expected>[] {
  const lines = markdown.split("\n");
  const header = lines.findIndex((line) => line.startsWith(heading));
  if (header < 0) throw new Error(`${SPEC} has no "${heading}" table`);
  const rows: Row<Expected>[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    const [quoted, language, expected, why] = cells;
    if (cells.length !== 4 || !quoted?.startsWith("`") || !quoted.endsWith("`")) throw new Error(`malformed row in ${SPEC}: ${line}`);
    if (!kinds.includes(expected!)) throw new Error(`unknown outcome "${expected}" in ${SPEC}: ${line}`);
    rows.push({ reply: quoted.slice(1, -1), language: language!, expected: expected as Expected, why: why! });
  }
  return rows;
}

const rows = specRows(readFileSync(SPEC, "utf8"));
const stopRows = specRows<"stop" | "other">(readFileSync(SPEC, "utf8"), "| Stop reply |", ["stop", "other"]);

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

describe("the stop rule (docs/confirmation-replies.md, “Stopping a running action”)", () => {
  it("is specified in English and Spanish, stops and non-stops alike", () => {
    for (const language of ["en", "es"]) {
      expect(stopRows.filter((row) => row.language === language && row.expected === "stop").length, language).to.be.at.least(5);
      expect(stopRows.filter((row) => row.language === language && row.expected === "other").length, language).to.be.at.least(4);
    }
  });

  for (const row of stopRows) {
    it(`${JSON.stringify(row.reply)} → ${row.expected} (${row.why})`, () => {
      expect(isStopRequest(row.reply)).to.equal(row.expected === "stop");
    });
  }

  it("never stops on a reply with a question mark, nor on a stop among other words", () => {
    for (const word of ["stop", "para", "detén", "abort"]) {
      for (const around of [`${word}?`, `¿${word}?`, `${word} if needed`, `not ${word}`, `${word} later`, `${word} the Sales part`]) {
        expect(isStopRequest(around), around).to.equal(false);
      }
    }
    expect(isStopRequest("stop ".repeat(50_000))).to.equal(false);
  });
});

describe("the stop sentence", () => {
  const action = (counts: { done: number; failed: number; total: number }) =>
    ({ ...counts, preview: "Assign “Safety” to Sales", status: "stopped" }) as AdminActionRow;

  it("says exactly what the stop left, in English and Spanish", () => {
    expect(replies.stopped("en", action({ done: 340, failed: 0, total: 2000 }), 1660)).to.match(/^Stopped after 340 of 2,000: 340 done, 1,660 not run\. /);
    expect(replies.stopped("es", action({ done: 340, failed: 0, total: 2000 }), 1660)).to.match(/^Detenida tras 340 de 2000: 340 hechos, 1660 sin ejecutar\. /);
  });

  it("counts failed items apart from done ones", () => {
    expect(replies.stopped("en", action({ done: 340, failed: 5, total: 2000 }), 1655)).to.match(
      /^Stopped after 345 of 2,000: 340 done, 5 failed, 1,655 not run\. /,
    );
  });
});
