/** chunkDocument: budgets, overlap, headings and pages carried per section, and the three strategies. */
import { expect } from "chai";
import { countTokens } from "../../../../workers/llm/tokens";
import { chunkDocument, type Chunk, type ChunkingOptions } from "../../../../workers/ingestion/chunking";
import { extractDocument, type ExtractedDocument, type ExtractedSection } from "../../../../workers/ingestion/extract";
import { makeMarkdown, makePdf } from "../../../support/document-fixtures";

const TOLERANCE = 2;

function section(text: string, heading: string | null = null, page: number | null = null): ExtractedSection {
  return { heading, text, pageStart: page, pageEnd: page };
}

function doc(...sections: ExtractedSection[]): ExtractedDocument {
  return { format: "txt", fullText: sections.map((s) => s.text).join("\n\n"), sections, pageCount: null };
}

const sentences = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => `Rule ${i + from} covers returning goods bought in store ${i + from}.`).join(" ");

function expectWellFormed(chunks: Chunk[], options: ChunkingOptions): void {
  expect(chunks.map((chunk) => chunk.position)).to.deep.equal(chunks.map((_, index) => index));
  for (const chunk of chunks) {
    expect(chunk.content.trim()).to.equal(chunk.content).and.not.equal("");
    expect(chunk.tokenCount).to.equal(countTokens(chunk.content));
    expect(chunk.tokenCount, chunk.content).to.be.at.most(options.chunkTokens + TOLERANCE);
    expect(chunk.content).to.not.include("\uFFFD");
  }
}

/** The last words of one chunk open the next one. */
function expectOverlap(previous: Chunk, next: Chunk): void {
  const tail = previous.content.split(/\s+/).slice(-3).join(" ");
  expect(next.content.slice(0, 200), `"${tail}" carried over`).to.include(tail);
}

describe("chunkDocument", () => {
  describe("recursive strategy", () => {
    const options: ChunkingOptions = { strategy: "recursive", chunkTokens: 60, overlapTokens: 15 };

    it("splits a long section within budget, with overlap, keeping its heading and page", () => {
      const text = sentences(30);
      const chunks = chunkDocument(doc(section(text, "Returns", 4)), options);
      expect(chunks.length).to.be.greaterThan(4);
      expectWellFormed(chunks, options);
      for (const chunk of chunks) {
        expect(chunk).to.deep.include({ heading: "Returns", pageStart: 4, pageEnd: 4 });
        expect(text).to.include(chunk.content);
      }
      for (let i = 1; i < chunks.length; i++) expectOverlap(chunks[i - 1]!, chunks[i]!);
      for (let n = 1; n <= 30; n++)
        expect(
          chunks.some((chunk) => chunk.content.includes(`Rule ${n} covers`)),
          `sentence ${n}`,
        ).to.equal(true);
    });

    it("keeps whole paragraphs together when they fit and never spans two sections", () => {
      const first = "Paragraph one is short.\n\nParagraph two is also short.";
      const chunks = chunkDocument(doc(section(first, "A", 1), section("Only paragraph of B.", "B", 2)), { ...options, chunkTokens: 200 });
      expect(chunks.map((c) => [c.content, c.heading, c.pageStart])).to.deep.equal([
        [first, "A", 1],
        ["Only paragraph of B.", "B", 2],
      ]);
    });

    it("prefers paragraph boundaries over sentence boundaries", () => {
      const paragraphs = Array.from({ length: 6 }, (_, i) => `Paragraph ${i} says a few words about badges and desks.`);
      const chunks = chunkDocument(doc(section(paragraphs.join("\n\n"))), { strategy: "recursive", chunkTokens: 30, overlapTokens: 0 });
      expectWellFormed(chunks, { strategy: "recursive", chunkTokens: 30, overlapTokens: 0 });
      for (const chunk of chunks)
        expect(
          chunk.content.split("\n\n").every((part) => paragraphs.includes(part)),
          chunk.content,
        ).to.equal(true);
    });

    it("drops whitespace-only sections and keeps positions contiguous", () => {
      const chunks = chunkDocument(doc(section("First."), section("   \n\n \t "), section(""), section("Second.")), options);
      expect(chunks.map((c) => [c.position, c.content])).to.deep.equal([
        [0, "First."],
        [1, "Second."],
      ]);
    });

    it("cuts text without spaces (a long token, unspaced script) within budget and without losing characters", () => {
      const url = `https://example.com/${"a1b2c3d4".repeat(200)}`;
      const japanese = "従業員は毎年二十五日の有給休暇を取得できます".repeat(30);
      for (const text of [url, japanese]) {
        const chunks = chunkDocument(doc(section(text)), { strategy: "recursive", chunkTokens: 50, overlapTokens: 0 });
        expectWellFormed(chunks, { strategy: "recursive", chunkTokens: 50, overlapTokens: 0 });
        expect(chunks.map((c) => c.content).join("")).to.equal(text);
      }
    });

    it("keeps the page of every PDF chunk", async () => {
      const pdf = await extractDocument(
        await makePdf([
          { heading: "Overview", body: sentences(3) },
          { heading: "Parking", body: sentences(40) },
        ]),
        "pdf",
      );
      const chunks = chunkDocument(pdf, options);
      expectWellFormed(chunks, options);
      expect(chunks[0]).to.deep.include({ heading: "Overview", pageStart: 1 });
      const parking = chunks.filter((c) => c.heading === "Parking");
      expect(parking.length).to.be.greaterThan(1);
      expect(parking.every((c) => c.pageStart === 2 && c.pageEnd === 2)).to.equal(true);
    });
  });

  describe("markdown strategy", () => {
    const options: ChunkingOptions = { strategy: "markdown", chunkTokens: 80, overlapTokens: 10 };

    it("splits at headings inside the section text and uses the heading path", () => {
      const text = [
        "Returns are free.",
        "## Receipts",
        "Keep the receipt.",
        "### Lost receipts",
        "Ask the store.",
        "```",
        "# not a heading",
        "```",
        "## Refunds",
        "Within five days.",
      ].join("\n\n");
      const chunks = chunkDocument(doc(section(text, "Returns")), options);
      expectWellFormed(chunks, options);
      expect(chunks.map((c) => [c.heading, c.content])).to.deep.equal([
        ["Returns", "Returns are free."],
        ["Returns > Receipts", "Keep the receipt."],
        ["Returns > Receipts > Lost receipts", "Ask the store.\n\n```\n\n# not a heading\n\n```"],
        ["Returns > Refunds", "Within five days."],
      ]);
    });

    it("chunks a real markdown file recursively inside each heading block", async () => {
      const bytes = makeMarkdown([{ heading: "Policies", body: `## Returns\n\n${sentences(20)}\n\n## Badges\n\nCollect at desk 4.` }]);
      const chunks = chunkDocument(await extractDocument(bytes, "markdown"), options);
      expectWellFormed(chunks, options);
      const returns = chunks.filter((c) => c.heading === "Policies > Returns");
      expect(returns.length).to.be.greaterThan(1);
      for (let i = 1; i < returns.length; i++) expectOverlap(returns[i - 1]!, returns[i]!);
      expect(chunks.at(-1)).to.deep.include({ heading: "Policies > Badges", content: "Collect at desk 4." });
    });
  });

  describe("token strategy", () => {
    it("cuts fixed windows of chunkTokens with overlapTokens repeated", () => {
      const options: ChunkingOptions = { strategy: "token", chunkTokens: 40, overlapTokens: 10 };
      const text = sentences(20);
      const total = countTokens(text);
      const chunks = chunkDocument(doc(section(text, "Returns", 3)), options);
      expectWellFormed(chunks, options);
      expect(chunks).to.have.length(Math.ceil((total - 10) / 30));
      expect(chunks.slice(0, -1).every((c) => c.tokenCount >= 38)).to.equal(true);
      expect(chunks.every((c) => c.heading === "Returns" && c.pageStart === 3)).to.equal(true);
      expect(text.startsWith(chunks[0]!.content)).to.equal(true);
      for (let i = 1; i < chunks.length; i++) expectOverlap(chunks[i - 1]!, chunks[i]!);
    });

    it("never cuts a multi-byte character in half", () => {
      const options: ChunkingOptions = { strategy: "token", chunkTokens: 7, overlapTokens: 3 };
      const chunks = chunkDocument(doc(section("休暇🎉申請は🎉マネージャーへ🎉".repeat(10))), options);
      expect(chunks.length).to.be.greaterThan(5);
      expectWellFormed(chunks, options);
    });
  });

  it("rejects budgets that cannot make progress", () => {
    const sample = doc(section("text"));
    expect(() => chunkDocument(sample, { strategy: "token", chunkTokens: 10, overlapTokens: 10 })).to.throw(RangeError);
    expect(() => chunkDocument(sample, { strategy: "recursive", chunkTokens: 0, overlapTokens: 0 })).to.throw(RangeError);
    expect(() => chunkDocument(sample, { strategy: "recursive", chunkTokens: 10, overlapTokens: -1 })).to.throw(RangeError);
  });
});
