/**
 * Vector search under the tenant filter: when another org owns every nearest neighbour, a
 * shared HNSW graph that stops at ef_search candidates returned nothing for this org (0 rows
 * without iterative scan, 5 with). Each large org now has a graph of its own rows
 * (db/queries/org-vector-indexes.ts), and an org without a valid one is searched exactly: both
 * must return k rows.
 */
import { expect } from "chai";
import { toVectorLiteral } from "../../../../db/knex";
import { vectorSearch, vectorSearchPlan } from "../../../../db/queries/knowledge-search";
import { buildOrgVectorIndex, orgVectorIndexName } from "../../../../db/queries/org-vector-indexes";
import { databaseSuite } from "../../../support/database";

const DIMENSIONS = 384;
const unit = (hot: number, jitter: number): number[] => {
  const v = Array.from({ length: DIMENSIONS }, (_, i) => (i === hot ? 1 : 0) + Math.sin(i * 7 + jitter) * 0.01);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

describe("vector search under the org filter", function () {
  const lane = databaseSuite(this, { timeoutMs: 120_000 });

  /** A crowded org right next to the query and a quiet org of five chunks orthogonal to it, with a reader of the quiet one. */
  async function crowdAndQuiet(): Promise<{ quiet: string; readerId: string; version: string }> {
    const db = lane.db;
    const version = (await db("pg_extension").where({ extname: "vector" }).first("extversion")).extversion as string;
    const crowd = (await lane.build.buildOrg({ name: "Crowd" })).id;
    const quiet = (await lane.build.buildOrg({ name: "Quiet" })).id;
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
    const reader = await lane.build.buildAdmin(quiet, { name: "Quiet Admin" });
    return { quiet, readerId: reader.id, version };
  }

  it("returns k rows for an org whose chunks are all far behind another org's, through the org's own index", async () => {
    const db = lane.db;
    const { quiet, readerId, version } = await crowdAndQuiet();
    expect(await buildOrgVectorIndex(db, quiet, { memoryMb: 64 })).to.equal("built");
    const options = { reader: { orgId: quiet, userId: readerId }, embedding: unit(0, 99), limit: 5, minSimilarity: -1, exactUpTo: 0 };
    // Make the planner walk the HNSW index (on a table this small it would sort exactly).
    const [{ path, plan }, hits] = await db.transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off");
      return [await vectorSearchPlan(trx, options), await vectorSearch(trx, options)] as const;
    });
    expect(path).to.equal("org-index");
    expect(plan).to.include(`Index Scan using ${orgVectorIndexName(quiet)}`);
    expect(hits, `pgvector ${version}`).to.have.length(5);
    expect(new Set(hits.map((h) => h.document_id)).size).to.equal(1);
    await db.raw(`DROP INDEX ${orgVectorIndexName(quiet)}`);
  });

  it("searches exactly an org of at most RETRIEVAL_EXACT_MAX_CHUNKS chunks, and a larger one until its own index is valid", async () => {
    const db = lane.db;
    const { quiet, readerId } = await crowdAndQuiet();
    const options = (exactUpTo: number) => ({ reader: { orgId: quiet, userId: readerId }, embedding: unit(0, 99), limit: 5, minSimilarity: -1, exactUpTo });
    // The planner pushed onto any index and iterative scans off: an index scan would find none of the quiet org's chunks.
    const [small, large, largePlan] = await db.transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL hnsw.iterative_scan = off");
      return [await vectorSearch(trx, options(5)), await vectorSearch(trx, options(4)), await vectorSearchPlan(trx, options(4))] as const;
    });
    expect(small.map((hit) => hit.position).sort()).to.deep.equal([0, 1, 2, 3, 4]);
    expect(largePlan.path, "above the limit, no index of its own yet").to.equal("exact");
    expect(largePlan.plan).to.not.include("document_chunks_embedding");
    expect(large.map((hit) => hit.position).sort()).to.deep.equal([0, 1, 2, 3, 4]);
  });
});
