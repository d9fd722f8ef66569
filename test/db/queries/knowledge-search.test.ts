/**
 * HNSW under a tenant filter: when another org owns every nearest neighbour, an index scan
 * that stops at ef_search candidates returns nothing for this org (measured here: 0 rows
 * without iterative scan, 5 with). Iterative scans (pgvector ≥ 0.8) plus ef_search ≥ k must
 * still return k rows.
 */
import { expect } from "chai";
import { toVectorLiteral } from "../../../db/knex";
import { vectorSearch } from "../../../db/queries/knowledge-search";
import { useStack, type Stack } from "../../support/stack";

const DIMENSIONS = 384;
const unit = (hot: number, jitter: number): number[] => {
  const v = Array.from({ length: DIMENSIONS }, (_, i) => (i === hot ? 1 : 0) + Math.sin(i * 7 + jitter) * 0.01);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

describe("vector search under the org filter", function () {
  this.timeout(120_000);
  let stack: Stack;
  const created: string[] = [];

  before(async function () {
    stack = await useStack();
  });
  after(async () => {
    await stack.server.deps.db("organizations").whereIn("id", created).delete();
  });

  /** A crowded org right next to the query and a quiet org of five chunks orthogonal to it, with a reader of the quiet one. */
  async function crowdAndQuiet(): Promise<{ quiet: string; readerId: string; version: string }> {
    const db = stack.server.deps.db;
    const version = (await db("pg_extension").where({ extname: "vector" }).first("extversion")).extversion as string;
    const orgs = await db("organizations")
      .insert([
        { name: "Crowd", slug: `crowd-${Date.now()}` },
        { name: "Quiet", slug: `quiet-${Date.now()}` },
      ])
      .returning("id");
    created.push(...orgs.map((o: { id: string }) => o.id));
    const [crowd, quiet] = orgs.map((o: { id: string }) => o.id) as [string, string];
    const insertDoc = async (orgId: string, n: number, hot: number) => {
      const [doc] = await db("documents")
        .insert({
          org_id: orgId,
          title: `doc ${hot}`,
          filename: "x.txt",
          mime_type: "text/plain",
          size_bytes: 1,
          content_hash: `h-${orgId}`,
          status: "COMPLETED",
        })
        .returning("id");
      const rows = Array.from({ length: n }, (_, i) => ({
        org_id: orgId,
        document_id: doc.id,
        position: i,
        content: `chunk ${i}`,
        embedding: db.raw("?::vector", [toVectorLiteral(unit(hot, i))]),
      }));
      for (let i = 0; i < rows.length; i += 100) await db("document_chunks").insert(rows.slice(i, i + 100));
    };
    await insertDoc(crowd, 300, 0); // right next to the query
    await insertDoc(quiet, 5, 1); // orthogonal to it
    // Search runs as someone who may read the org's documents (db/queries/access.ts).
    const [reader] = await db("users")
      .insert({ org_id: quiet, email: `quiet-admin-${Date.now()}@example.com`, name: "Quiet Admin", role: "admin" })
      .returning("id");
    return { quiet, readerId: reader.id, version };
  }

  it("returns k rows for an org whose chunks are all far behind another org's", async () => {
    const db = stack.server.deps.db;
    const { quiet, readerId, version } = await crowdAndQuiet();
    // Make the planner walk the HNSW index (on a table this small it would sort exactly). PGlite
    // is one backend session, so these settings reach the pooled connection vectorSearch uses.
    await db.raw("SET enable_sort = off; SET enable_seqscan = off; SET enable_bitmapscan = off");
    let hits;
    try {
      const plan = await db.raw("EXPLAIN SELECT id FROM document_chunks WHERE org_id = ? ORDER BY embedding <=> ?::vector LIMIT 5", [
        quiet,
        toVectorLiteral(unit(0, 99)),
      ]);
      expect(JSON.stringify(plan.rows)).to.include("document_chunks_embedding_hnsw");
      hits = await vectorSearch(db, { reader: { orgId: quiet, userId: readerId }, embedding: unit(0, 99), limit: 5, minSimilarity: -1 });
    } finally {
      await db.raw("RESET enable_sort; RESET enable_seqscan; RESET enable_bitmapscan");
    }
    expect(hits, `pgvector ${version}`).to.have.length(5);
    expect(new Set(hits.map((h) => h.document_id)).size).to.equal(1);
  });

  it("searches an org of at most RETRIEVAL_EXACT_MAX_CHUNKS chunks exactly, without the index, and a larger one through it", async () => {
    const db = stack.server.deps.db;
    const { quiet, readerId } = await crowdAndQuiet();
    const search = (trx: typeof db, exactUpTo: number) =>
      vectorSearch(trx, { reader: { orgId: quiet, userId: readerId }, embedding: unit(0, 99), limit: 5, minSimilarity: -1, exactUpTo });
    // With the planner pushed onto the index and iterative scans off, an index scan finds none of
    // the quiet org's chunks (the crowd fills every candidate slot); an exact search finds all five.
    const [exact, tooBig, indexOnly] = await db.transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL hnsw.iterative_scan = off");
      return [await search(trx, 5), await search(trx, 4), await search(trx, 0)];
    });
    expect(exact.map((hit) => hit.position).sort()).to.deep.equal([0, 1, 2, 3, 4]);
    expect(tooBig, "an org above the limit goes through the index").to.have.length(0);
    expect(indexOnly, "0: always the index").to.have.length(0);
  });
});
