/** Citation markers in an answer (workers/tutor/citations.ts). */
import { expect } from "chai";
import { citedIndices, extractCitations } from "../../../../workers/tutor/citations";
import type { RetrievedSource } from "../../../../workers/tutor/retrieval/types";

describe("citations", () => {
  it("citedIndices reads [n], lists, adjacent markers and ranges in first-seen order, once each", () => {
    expect(citedIndices("Thirty days [1].")).to.deep.equal([1]);
    expect(citedIndices("See [3] and [1, 2]. Again [3].")).to.deep.equal([3, 1, 2]);
    expect(citedIndices("Both [1][3].")).to.deep.equal([1, 3]);
    expect(citedIndices("Range [2-4] and [6–7].")).to.deep.equal([2, 3, 4, 6, 7]);
    expect(citedIndices("No markers here, not [a] nor [1.5].")).to.deep.equal([]);
  });

  it("citedIndices caps an absurd range instead of expanding it", () => {
    expect(citedIndices("[1-100000]")).to.have.length(50);
  });

  const sources: RetrievedSource[] = [
    {
      index: 1,
      document: "Returns Policy Manual",
      section: "1. Refund Window",
      page: 1,
      sourceType: "document_chunk",
      sourceId: "c1",
      content: "thirty days",
    },
    { index: 2, document: "Returns Essentials", section: "M1 > L1", page: null, sourceType: "lesson", sourceId: "l1", content: "count from the day after" },
  ];

  it("extractCitations keeps only sources that were given, ordered by index, without their text", () => {
    const citations = extractCitations("Refunds take 30 days [2][9]. See also [1] and [0], [2].", sources);
    expect(citations.map((c) => c.index)).to.deep.equal([1, 2]);
    expect(citations[0]).to.deep.equal({
      index: 1,
      document: "Returns Policy Manual",
      section: "1. Refund Window",
      page: 1,
      sourceType: "document_chunk",
      sourceId: "c1",
    });
    expect(citations[1]).to.not.have.property("content");
  });

  it("extractCitations returns nothing for an answer with only invented markers, or no sources", () => {
    expect(extractCitations("As [9] says.", sources)).to.deep.equal([]);
    expect(extractCitations("As [1] says.", [])).to.deep.equal([]);
  });
});
