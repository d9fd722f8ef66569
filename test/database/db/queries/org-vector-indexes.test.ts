/**
 * Organisations' own HNSW indexes, built online (db/queries/org-vector-indexes.ts, the
 * `vector-indexes` sweep): built when an organisation passes RETRIEVAL_EXACT_MAX_CHUNKS, searched
 * exactly until valid (the same answers before, during and after the build), an interrupted build
 * dropped and built again, and no organisation reaching another's chunks through an index.
 * CREATE INDEX CONCURRENTLY and its waits are the real server's: skipped on the PGlite lane.
 */
import { expect } from "chai";
import { toVectorLiteral } from "../../../../db/knex";
import { vectorSearch, vectorSearchPlan, type VectorSearchOptions } from "../../../../db/queries/knowledge-search";
import { buildOrgVectorIndex, orgVectorIndexName, orgVectorIndexState } from "../../../../db/queries/org-vector-indexes";
import { testDatabaseEngine } from "../../../harness/infrastructure";
import { buildMissingVectorIndexes } from "../../../../workers/maintenance/vector-indexes";
import { databaseSuite } from "../../../support/database";
import { vectorTestDocument } from "../../../support/vector-documents";
import { configWith } from "../../../support/tunables";

const DIMENSIONS = 384;
const THRESHOLD = 60;

/** Deterministic unit vectors around `centre` (a dimension index): chunks of one topic are near each other. */
function vectorNear(centre: number, seed: number): number[] {
  const v = Array.from({ length: DIMENSIONS }, (_, i) => (i === centre ? 1 : 0) + Math.sin(seed * 12.9898 + i * 78.233) * 0.15);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe("organisations' own vector indexes, built online", function () {
  const lane = databaseSuite(this, { timeoutMs: 120_000 });
  const created: string[] = [];

  before(function () {
    if (testDatabaseEngine() !== "server") this.skip();
  });
  after(async () => {
    if (created.length === 0) return;
    const db = lane.deps.db;
    for (const orgId of created) await db.raw(`DROP INDEX IF EXISTS ${orgVectorIndexName(orgId)}`);
    await db("organizations").whereIn("id", created).delete();
  });

  const sweepConfig = () => configWith(lane.deps.config, { RETRIEVAL_EXACT_MAX_CHUNKS: THRESHOLD });

  async function newOrg(label: string): Promise<{ orgId: string; readerId: string }> {
    const org = await lane.build.buildOrg({ name: label });
    created.push(org.id);
    const reader = await lane.build.buildAdmin(org.id, { name: label });
    return { orgId: org.id, readerId: reader.id };
  }

  /** A published document of `count` chunks around `centre` (chunk_count set, as publishChunkDrafts does). */
  async function addDocument(orgId: string, count: number, centre: number, seed: number): Promise<void> {
    const db = lane.deps.db;
    const [doc] = await db("documents")
      .insert(vectorTestDocument(orgId, centre, seed, { status: "COMPLETED", chunk_count: count }))
      .returning("id");
    const rows = Array.from({ length: count }, (_, i) => ({
      org_id: orgId,
      document_id: doc.id,
      position: i,
      content: `chunk ${seed}-${i}`,
      embedding: db.raw("?::vector", [toVectorLiteral(vectorNear(centre, seed * 1000 + i))]),
    }));
    for (let i = 0; i < rows.length; i += 100) await db("document_chunks").insert(rows.slice(i, i + 100));
  }

  const searchOf = (orgId: string, readerId: string, seed: number): VectorSearchOptions => ({
    reader: { orgId, userId: readerId },
    embedding: vectorNear(3, seed),
    limit: 10,
    minSimilarity: -1,
    exactUpTo: THRESHOLD,
  });
  const idsOf = async (options: VectorSearchOptions) => {
    return (await vectorSearch(lane.deps.db, options)).map((hit) => hit.id).sort();
  };

  /** A transaction holding an old snapshot: CREATE INDEX CONCURRENTLY waits for it before the index becomes valid. */
  async function holdSnapshot(): Promise<{ release(): Promise<void> }> {
    const db = lane.deps.db;
    const trx = await db.transaction({ isolationLevel: "repeatable read" });
    await trx.raw("SELECT count(*) FROM document_chunks");
    return {
      release: async () => {
        await trx.commit();
      },
    };
  }

  /** Until the build of `name` is waiting (for the held snapshot), returns its backend's pid. */
  async function builderWaiting(name: string): Promise<number> {
    const db = lane.deps.db;
    for (let attempt = 0; attempt < 600; attempt++) {
      const { rows } = await db.raw("SELECT pid FROM pg_stat_activity WHERE query LIKE ? AND wait_event_type = 'Lock'", [`CREATE INDEX CONCURRENTLY%${name}%`]);
      if (rows.length > 0) return rows[0].pid as number;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the build of ${name} never waited`);
  }

  it("builds an organisation's index once it passes the limit, and its search then goes through that index", async () => {
    const db = lane.deps.db;
    const { orgId, readerId } = await newOrg("growing");
    await addDocument(orgId, THRESHOLD - 10, 3, 1);
    await buildMissingVectorIndexes({ db, config: sweepConfig() });
    expect(await orgVectorIndexState(db, orgId), "below the limit: no index").to.equal("absent");

    await addDocument(orgId, 40, 3, 2);
    const sweep = await buildMissingVectorIndexes({ db, config: sweepConfig() });
    expect(sweep.built).to.include(orgId);
    expect(await orgVectorIndexState(db, orgId)).to.equal("valid");
    const again = await buildMissingVectorIndexes({ db, config: sweepConfig() });
    expect(again.built, "a second sweep has nothing to do").to.not.include(orgId);
    const { path, plan } = await vectorSearchPlan(db, searchOf(orgId, readerId, 7));
    expect(path).to.equal("org-index");
    expect(plan, "the planner proves the partial index covers the query").to.include(`Index Scan using ${orgVectorIndexName(orgId)}`);
  });

  it("answers the same before, during and after the build: exact until the index is valid", async () => {
    const db = lane.deps.db;
    const { orgId, readerId } = await newOrg("steady");
    for (let d = 0; d < 4; d++) await addDocument(orgId, 30, 3 + (d % 2), 10 + d);
    const options = searchOf(orgId, readerId, 8);
    const before = await idsOf(options);
    expect(before).to.have.length(10);

    const snapshot = await holdSnapshot();
    const building = buildOrgVectorIndex(db, orgId, { memoryMb: 64 });
    try {
      await builderWaiting(orgVectorIndexName(orgId));
      expect(await orgVectorIndexState(db, orgId), "mid-build the index exists but is not valid").to.equal("building-or-invalid");
      expect((await vectorSearchPlan(db, options)).path, "an invalid index is not searched").to.equal("exact");
      expect(await idsOf(options)).to.deep.equal(before);
      expect(await buildOrgVectorIndex(db, orgId, { memoryMb: 64 }), "a second builder backs off").to.equal("locked");
    } finally {
      await snapshot.release();
    }
    expect(await building).to.equal("built");
    expect((await vectorSearchPlan(db, options)).path).to.equal("org-index");
    expect(await idsOf(options)).to.deep.equal(before);
  });

  it("drops an interrupted build's invalid index and builds it again", async () => {
    const db = lane.deps.db;
    const { orgId, readerId } = await newOrg("interrupted");
    await addDocument(orgId, 100, 3, 20);
    const options = searchOf(orgId, readerId, 9);
    const exact = await idsOf(options);

    const snapshot = await holdSnapshot();
    const building = buildOrgVectorIndex(db, orgId, { memoryMb: 64 });
    const outcome = building.then(
      () => "finished",
      () => "failed",
    );
    try {
      const pid = await builderWaiting(orgVectorIndexName(orgId));
      await db.raw("SELECT pg_cancel_backend(?)", [pid]);
      expect(await outcome, "the cancelled build fails").to.equal("failed");
    } finally {
      await snapshot.release();
    }
    expect(await orgVectorIndexState(db, orgId), "it left an invalid index behind").to.equal("building-or-invalid");
    expect(await idsOf(options), "searched exactly meanwhile").to.deep.equal(exact);

    const sweep = await buildMissingVectorIndexes({ db, config: sweepConfig() });
    expect(sweep.built).to.include(orgId);
    expect(await orgVectorIndexState(db, orgId)).to.equal("valid");
    expect((await vectorSearchPlan(db, options)).path).to.equal("org-index");
    expect(await idsOf(options)).to.deep.equal(exact);
  });

  it("never reaches another organisation's chunks through an index, however much nearer they are", async () => {
    const db = lane.deps.db;
    const near = await newOrg("near");
    const far = await newOrg("far");
    await addDocument(near.orgId, 120, 3, 30); // right at the query
    await addDocument(far.orgId, 80, 200, 31); // orthogonal to it
    await buildMissingVectorIndexes({ db, config: sweepConfig() });
    expect(await orgVectorIndexState(db, near.orgId)).to.equal("valid");
    expect(await orgVectorIndexState(db, far.orgId)).to.equal("valid");
    const options = searchOf(far.orgId, far.readerId, 10);
    // On a table this small the planner may rather sort; made to walk the index, it must still stay inside the org.
    const [{ path, plan }, hits] = await db.transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_sort = off");
      return [await vectorSearchPlan(trx, options), await vectorSearch(trx, options)] as const;
    });
    expect(path).to.equal("org-index");
    expect(plan).to.include(`Index Scan using ${orgVectorIndexName(far.orgId)}`);
    expect(hits).to.have.length(10);
    const owners = await db("document_chunks")
      .whereIn(
        "id",
        hits.map((hit) => hit.id),
      )
      .distinct("org_id");
    expect(owners.map((row: { org_id: string }) => row.org_id)).to.deep.equal([far.orgId]);
  });
});
