/**
 * The write-optimised tail of the organisations' HNSW indexes (db/queries/org-vector-indexes.ts):
 * chunks published into an organisation that has its index are written `vector_pending`, outside
 * the graph; every index search adds an exact scan of them; the `vector-indexes` sweep folds them
 * into the graph later. Checked: such a chunk is found before and after its fold, the answers are
 * exact search's throughout (also while a fold is uncommitted, and after one that died), the tail
 * never shows another organisation's chunks, and an index of the first layout is searched until
 * the sweep has replaced it. The real server's CREATE INDEX CONCURRENTLY: skipped on PGlite.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { expect } from "chai";
import { publishChunkDrafts, replaceChunkDrafts, saveDraftEmbeddings } from "../../../../db/queries/chunk-drafts";
import { vectorSearch, vectorSearchPlan, type VectorSearchOptions } from "../../../../db/queries/knowledge-search";
import { legacyOrgVectorIndexName, orgVectorIndexName, orgVectorIndexState } from "../../../../db/queries/org-vector-indexes";
import { testDatabaseEngine } from "../../../harness/infrastructure";
import { buildMissingVectorIndexes } from "../../../../workers/maintenance/vector-indexes";
import { databaseSuite } from "../../../support/database";
import { vectorTestDocument } from "../../../support/vector-documents";
import { configWith } from "../../../support/tunables";

const DIMENSIONS = 384;

/** A worker's fold, its transaction left open until the process is killed. */
const FOLD_THEN_HANG = `
  import { createDb } from "./db/knex";
  import { foldVectorTail } from "./db/queries/org-vector-indexes";
  const db = createDb({ url: process.env.FOLD_DATABASE_URL, poolMax: 1 });
  const trx = await db.transaction();
  const pid = (await trx.raw("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  console.log("folded " + (await foldVectorTail(trx, process.env.FOLD_ORG, 25)) + " by " + pid);
  setInterval(() => undefined, 60_000);
`;
const THRESHOLD = 60;

/** Deterministic unit vectors around `centre` (a dimension index): chunks of one topic are near each other. */
function vectorNear(centre: number, seed: number, spread = 0.03): number[] {
  const v = Array.from({ length: DIMENSIONS }, (_, i) => (i === centre ? 1 : 0) + Math.sin(seed * 12.9898 + i * 78.233) * spread);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe("the vector tail: chunks searchable at once, folded into the graph later", function () {
  const lane = databaseSuite(this, { timeoutMs: 120_000 });
  const created: string[] = [];
  const db = () => lane.deps.db;

  before(function () {
    if (testDatabaseEngine() !== "server") this.skip();
  });
  after(async () => {
    if (created.length === 0) return;
    for (const orgId of created) {
      await db().raw(`DROP INDEX IF EXISTS ${orgVectorIndexName(orgId)}`);
      await db().raw(`DROP INDEX IF EXISTS ${legacyOrgVectorIndexName(orgId)}`);
    }
    await db()("organizations").whereIn("id", created).delete();
  });

  const sweepConfig = () => configWith(lane.deps.config, { RETRIEVAL_EXACT_MAX_CHUNKS: THRESHOLD });
  const sweep = () => buildMissingVectorIndexes({ db: db(), config: sweepConfig() });

  async function newOrg(label: string): Promise<{ orgId: string; readerId: string }> {
    const org = await lane.build.buildOrg({ name: label });
    created.push(org.id);
    const reader = await lane.build.buildAdmin(org.id, { name: label });
    return { orgId: org.id, readerId: reader.id };
  }

  /** A document of `count` chunks around `centre`, published the way ingestion publishes (drafts, vectors, swap). */
  async function publishDocument(orgId: string, count: number, centre: number, seed: number): Promise<string[]> {
    const [doc] = await db()("documents")
      .insert(vectorTestDocument(orgId, centre, seed, { status: "EMBEDDING", ingest_generation: 1 }))
      .returning("id");
    const run = { orgId, documentId: doc.id as string, generation: 1 };
    const positions = Array.from({ length: count }, (_, i) => i);
    await replaceChunkDrafts(
      db(),
      run,
      positions.map((position) => ({ position, content: `chunk ${seed}-${position}`, tokenCount: 3, metadata: {} })),
    );
    await saveDraftEmbeddings(
      db(),
      run,
      positions.map((position) => ({ position, vector: vectorNear(centre, seed * 1000 + position) })),
    );
    expect(await publishChunkDrafts(db(), run, count)).to.equal(true);
    const rows = await db()("document_chunks").where({ document_id: doc.id, org_id: orgId }).select("id");
    return rows.map((row: { id: string }) => row.id);
  }

  const pendingOf = async (orgId: string) => Number((await db()("document_chunks").where({ org_id: orgId, vector_pending: true }).count("* as n"))[0]!.n);

  const searchOf = (orgId: string, readerId: string, seed: number, exactUpTo = THRESHOLD): VectorSearchOptions => ({
    reader: { orgId, userId: readerId },
    embedding: vectorNear(3, seed),
    limit: 10,
    minSimilarity: -1,
    exactUpTo,
  });
  const idsOf = async (options: VectorSearchOptions) => {
    return (await vectorSearch(db(), options)).map((hit) => hit.id).sort();
  };
  /** The true ten nearest: exact search forced (no org is that large). */
  const exactIdsOf = (options: VectorSearchOptions) => idsOf({ ...options, exactUpTo: Number.MAX_SAFE_INTEGER });

  it("writes a chunk published after the index exists into the tail, finds it before the fold and after, as exact search does", async () => {
    const { orgId, readerId } = await newOrg("tail");
    // Far from the query, so the nearest ten are the document published later.
    await publishDocument(orgId, 100, 40, 1);
    expect(await pendingOf(orgId), "no index yet: nothing pending").to.equal(0);
    expect((await sweep()).built).to.include(orgId);
    expect(await orgVectorIndexState(db(), orgId)).to.equal("valid");
    const fresh = await publishDocument(orgId, 30, 3, 2);
    expect(await pendingOf(orgId), "published into an indexed org: pending, outside the graph").to.equal(30);
    const options = searchOf(orgId, readerId, 7);
    expect((await vectorSearchPlan(db(), options)).path).to.equal("org-index");
    const before = await idsOf(options);
    expect(before).to.have.length(10);
    expect(fresh, "the nearest ten are the new, unfolded chunks").to.include.members(before);
    expect(before).to.deep.equal(await exactIdsOf(options));

    const swept = await sweep();
    expect(swept.folded).to.equal(30);
    expect(await pendingOf(orgId)).to.equal(0);
    const { plan } = await vectorSearchPlan(db(), options);
    expect(plan).to.include(`Index Scan using ${orgVectorIndexName(orgId)}`);
    expect(await idsOf(options), "after the fold the graph finds them").to.deep.equal(before);
  });

  it("answers as exact search does while a fold is uncommitted, and a fold that dies loses nothing", async () => {
    const { orgId, readerId } = await newOrg("crash");
    await publishDocument(orgId, 80, 40, 3);
    await sweep();
    await publishDocument(orgId, 40, 3, 4);
    expect(await pendingOf(orgId)).to.equal(40);
    const options = searchOf(orgId, readerId, 8);
    const exact = await exactIdsOf(options);

    // A worker folding 25 rows dies before its commit: a process of its own, SIGKILLed mid-transaction.
    const child = spawn(process.execPath, ["--import", "tsx", "-e", FOLD_THEN_HANG], {
      env: { ...process.env, FOLD_DATABASE_URL: lane.deps.config.database.DATABASE_URL, FOLD_ORG: orgId },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let backend = 0;
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
      expect(line, "the child folded its batch and holds it uncommitted").to.match(/^folded 25 by \d+$/);
      backend = Number(line.split(" ").at(-1));
      expect(await idsOf(options), "mid-fold: the rows' committed versions are still pending to other sessions").to.deep.equal(exact);
    } finally {
      child.kill("SIGKILL");
      if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
    }
    // The server notices the dropped connection and rolls its transaction back.
    const alive = async () => (await db().raw("SELECT 1 FROM pg_stat_activity WHERE pid = ?", [backend])).rows.length > 0;
    for (let attempt = 0; attempt < 100 && (await alive()); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await alive(), "the dead worker's session is gone").to.equal(false);
    expect(await pendingOf(orgId), "the dead fold rolled back whole").to.equal(40);
    expect(await idsOf(options)).to.deep.equal(exact);

    expect((await sweep()).folded).to.equal(40);
    expect(await pendingOf(orgId)).to.equal(0);
    expect(await idsOf(options)).to.deep.equal(exact);
  });

  it("never shows another organisation's pending chunks, however much nearer", async () => {
    const near = await newOrg("tail-near");
    const far = await newOrg("tail-far");
    await publishDocument(near.orgId, 80, 50, 5);
    await publishDocument(far.orgId, 80, 200, 6);
    await sweep();
    await publishDocument(near.orgId, 40, 3, 7); // right at the query, pending
    await publishDocument(far.orgId, 20, 201, 8); // far from it, pending
    expect(await pendingOf(near.orgId)).to.equal(40);

    const options = searchOf(far.orgId, far.readerId, 9);
    expect((await vectorSearchPlan(db(), options)).path).to.equal("org-index");
    const hits = await vectorSearch(db(), options);
    expect(hits).to.have.length(10);
    const owners = await db()("document_chunks")
      .whereIn(
        "id",
        hits.map((hit) => hit.id),
      )
      .distinct("org_id");
    expect(owners.map((row: { org_id: string }) => row.org_id)).to.deep.equal([far.orgId]);
    expect(hits.map((hit) => hit.id).sort()).to.deep.equal(await exactIdsOf(options));
  });

  it("searches an index of the first layout until the sweep has built its replacement, then drops it", async () => {
    const { orgId, readerId } = await newOrg("legacy");
    await publishDocument(orgId, 100, 3, 10);
    // What the first sweep built: every row of the org in the graph, pending or not.
    const legacy = legacyOrgVectorIndexName(orgId);
    await db().raw(`CREATE INDEX ${legacy} ON document_chunks USING hnsw (embedding vector_cosine_ops) WHERE org_id = '${orgId}'::uuid`);
    const options = searchOf(orgId, readerId, 11);
    const exact = await exactIdsOf(options);
    const before = await db().transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_sort = off");
      return vectorSearchPlan(trx, options);
    });
    expect(before.path).to.equal("legacy-index");
    expect(before.plan).to.include(`Index Scan using ${legacy}`);
    expect(await idsOf(options)).to.deep.equal(exact);

    expect((await sweep()).built).to.include(orgId);
    const { rows } = await db().raw("SELECT 1 FROM pg_class WHERE relname = ?", [legacy]);
    expect(rows, "the first layout's index is dropped once its replacement is valid").to.have.length(0);
    expect((await vectorSearchPlan(db(), options)).path).to.equal("org-index");
    expect(await idsOf(options)).to.deep.equal(exact);
  });
});
