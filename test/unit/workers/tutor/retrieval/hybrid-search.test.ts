/** Hybrid-search scoring and de-duplication of hits (workers/tutor/retrieval/hybrid-search.ts). */
import { expect } from "chai";
import type { ChunkHit } from "../../../../../db/queries/knowledge-search";
import { combine, jaccard, keywordCoverage, selectHits, type ScoredHit } from "../../../../../workers/tutor/retrieval/hybrid-search";
import { contentWords } from "../../../../../workers/tutor/language";

describe("hybrid search selection", () => {
  const hit = (id: string, documentTitle: string, position: number, content: string, score: number): ScoredHit => ({
    id,
    document_id: `doc:${documentTitle}`,
    document_title: documentTitle,
    content,
    position,
    metadata: {},
    similarity: 0,
    text_rank: 0,
    score,
  });

  it("jaccard compares word sets, case-insensitively", () => {
    expect(jaccard("a b c", "A B C")).to.equal(1);
    expect(jaccard("a b c", "d e f")).to.equal(0);
    expect(jaccard("a b c", "a b d")).to.equal(0.5);
    expect(jaccard("", "a")).to.equal(0);
    expect(jaccard("a a a b", "a b")).to.equal(1);
  });

  it("selectHits drops near-duplicates of better hits and keeps same-document neighbours (the answer often sits next door)", () => {
    const kept = selectHits([
      hit("best", "Playbook", 2, "escalate the ticket with code zebra seven today", 0.9),
      hit("dup", "Manual", 7, "escalate the ticket with code zebra seven now", 0.8),
      hit("neighbour", "Playbook", 3, "response time targets for chat and email", 0.7),
      hit("other-doc", "Manual", 3, "card refunds take five business days", 0.6),
      hit("far", "Playbook", 5, "close the ticket with the right reason code", 0.5),
    ]);
    expect(kept.map((h) => h.id)).to.deep.equal(["best", "neighbour", "other-doc", "far"]);
  });

  it("selectHits keeps at most five, best first, so source [1] is the strongest evidence", () => {
    const hits = Array.from({ length: 9 }, (_, i) =>
      hit(`h${i}`, i % 2 ? "B doc" : "A doc", i * 10, `unique words number ${i} ${"x".repeat(i + 1)} alpha${i} beta${i} gamma${i}`, 1 - i / 10),
    );
    const kept = selectHits(hits);
    expect(kept.map((h) => h.id)).to.deep.equal(["h0", "h1", "h2", "h3", "h4"]);
  });

  it("combine can fuse by reciprocal rank instead, ignoring the scores' scales", () => {
    const base = hit("x", "Doc", 1, "text", 0);
    const vector: ChunkHit[] = [
      { ...base, id: "v1", similarity: 0.9 },
      { ...base, id: "both", similarity: 0.2 },
    ];
    const text: ChunkHit[] = [
      { ...base, id: "both", text_rank: 0.1 },
      { ...base, id: "t2", text_rank: 9 },
    ];
    const scored = combine(vector, text, { method: "rrf", vectorWeight: 0.7, rrfK: 60 });
    expect(scored.map((h) => h.id)).to.deep.equal(["both", "v1", "t2"]);
    expect(scored[0]!.score).to.be.closeTo(1 / 62 + 1 / 61, 1e-12);
  });

  it("keywordCoverage counts the share of the question's content words a chunk contains", () => {
    const escalation = "Tag the ticket with the ticket escalation code ZEBRA-7 so it is routed to the Tier 2 resolution team.";
    expect(keywordCoverage(contentWords("What is ticket escalation code ZEBRA-7 for?"), escalation)).to.equal(1);
    expect(keywordCoverage(contentWords("What is ZEBRA-7?"), escalation)).to.equal(1);
    expect(keywordCoverage(contentWords("Who won the 1998 football world cup?"), "Never argue about who is at fault.")).to.be.closeTo(1 / 6, 1e-9);
    expect(keywordCoverage(contentWords("¿Cuál es el código?"), "El código de escalado")).to.equal(1);
    expect(keywordCoverage([], escalation)).to.equal(0);
  });

  it("combine adds the weighted vector and keyword scores of a chunk found both ways", () => {
    const base = hit("x", "Doc", 1, "text", 0);
    const vector: ChunkHit[] = [{ ...base, similarity: 0.5 }];
    const text: ChunkHit[] = [
      { ...base, text_rank: 0.2 },
      { ...base, id: "y", text_rank: 0.4 },
    ];
    const scored = combine(vector, text);
    expect(scored.map((h) => h.id)).to.deep.equal(["x", "y"]);
    expect(scored[0]!.score).to.be.closeTo(0.6 * 0.5 + 0.4 * 0.5, 1e-9);
    expect(scored[1]!.score).to.be.closeTo(0.4, 1e-9);
  });
});
