/**
 * The candidates for a fast insert into a large organisation's vector index, measured on one
 * organisation of BENCH_CANDIDATE_CHUNKS chunks (100,000 by default: the 1M corpus's largest) on
 * the bench's real server: (a) the HNSW graph's build settings (m, ef_construction), each
 * index's build time, its rows/s for inserts straight into the graph and its recall@10 at the
 * product's ef_search; (c) the vector tail, the exact part a search adds at 1,000 / 2,000 / 5,000
 * pending rows. Not part of `npm run bench` (a few minutes of both cores);
 * `node --import tsx scripts/bench/vector-candidates.ts`. Figures: bench/optimisations.md § 14.
 */
import os from "node:os";
import { createDb, type Db } from "../../db/knex";
import { migrateLatest } from "../../db/migrator";
import { vectorSearch, vectorSearchCache } from "../../db/queries/knowledge-search";
import { buildOrgVectorIndex, orgVectorIndexName, orgVectorPredicate } from "../../db/queries/org-vector-indexes";
import { startBenchDatabase } from "./database";
import { fmt, percentile } from "./stats";
import { CorpusMaker, insertCorpusDocuments, vectorText } from "./vector-corpus";

const CHUNKS = Number(process.env.BENCH_CANDIDATE_CHUNKS ?? 100_000);
const QUERIES = 40;
const INSERTS = 2_000;
const BATCH = 500;
const CHUNKS_PER_DOCUMENT = 24;

async function insert(db: Db, maker: CorpusMaker, org: { id: string; docs: string[]; centres: Float64Array[] }, from: number, count: number, pending: boolean) {
  const t0 = performance.now();
  for (let start = from; start < from + count; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, from + count - start) }, (_, i) => start + i);
    const params = rows.flatMap((i) => [
      org.id,
      org.docs[Math.floor(i / CHUNKS_PER_DOCUMENT) % org.docs.length],
      i,
      `chunk ${i}`,
      vectorText(maker.chunk(org.centres, i)),
    ]);
    await db.raw(
      `INSERT INTO document_chunks (org_id, document_id, position, content, embedding, vector_pending) VALUES ${rows.map(() => `(?::uuid, ?::uuid, ?, ?, ?::vector, ${pending})`).join(",")}`,
      params as never[],
    );
  }
  return count / ((performance.now() - t0) / 1000);
}

const database = await startBenchDatabase("server");
const db = createDb({ url: database.url, poolMax: 2 });
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};
try {
  await migrateLatest(db);
  const maker = new CorpusMaker(3);
  const [o] = await db("organizations").insert({ name: "Candidates", slug: "candidates" }).returning("id");
  const [reader] = await db("users").insert({ org_id: o.id, email: "r@bench.example", name: "R", role: "admin" }).returning("id");
  const centres = maker.documents(CHUNKS + 20_000);
  const docs = await insertCorpusDocuments(db, o.id, centres.length, { title: "M", hash: "c" });
  const org = { id: o.id as string, docs, centres };
  await insert(db, maker, org, 0, CHUNKS, false);
  await db.raw("VACUUM ANALYZE document_chunks");
  let next = CHUNKS;
  say(
    `${CHUNKS.toLocaleString("en")} chunks in one organisation; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" / ")}`,
  );
  const probes = Array.from({ length: QUERIES }, () => maker.query(centres.slice(0, Math.ceil(CHUNKS / CHUNKS_PER_DOCUMENT))));
  // What a worker remembers of the org's size and index (its deps); each measurement starts a fresh one.
  let cache = vectorSearchCache();
  const search = async (embedding: number[], exactUpTo: number) => {
    const t0 = performance.now();
    const hits = await vectorSearch(db, { reader: { orgId: org.id, userId: reader.id }, embedding, limit: 10, minSimilarity: -1, exactUpTo, cache });
    return { ids: hits.map((hit) => hit.id), ms: performance.now() - t0 };
  };
  const truthOf = async () => {
    const truth: string[][] = [];
    for (const probe of probes) truth.push((await search(probe, Number.MAX_SAFE_INTEGER)).ids);
    return truth;
  };
  const measure = async (truth: string[][]) => {
    cache = vectorSearchCache();
    const ms: number[] = [];
    let found = 0;
    for (const [i, probe] of probes.entries()) {
      const { ids, ms: took } = await search(probe, 2_000);
      ms.push(took);
      found += ids.filter((id) => truth[i]!.includes(id)).length;
    }
    return { recall: found / (QUERIES * 10), p50: percentile(ms, 50), p99: percentile(ms, 99) };
  };

  // (a) graph settings: each built the sweep's way, then rows straight into it, then recall at ef_search 200.
  for (const [m, efc] of [
    [16, 64],
    [16, 32],
    [8, 32],
    [8, 16],
  ] as const) {
    const name = orgVectorIndexName(org.id);
    await db.raw(`DROP INDEX IF EXISTS ${name}`);
    await db.raw("SET maintenance_work_mem = '512MB'");
    const t0 = performance.now();
    await db.raw(
      `CREATE INDEX ${name} ON document_chunks USING hnsw (embedding vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efc}) WHERE ${orgVectorPredicate(org.id)}`,
    );
    const buildS = (performance.now() - t0) / 1000;
    const rate = await insert(db, maker, org, next, INSERTS, false);
    next += INSERTS;
    const result = await measure(await truthOf());
    say(
      `m ${m}, ef_construction ${efc}: build ${fmt(buildS)} s; inserts straight into the graph ${fmt(rate)} rows/s; recall@10 ${fmt(result.recall, 3)}, p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms`,
    );
  }
  // The product's graph again, then (c): the tail's rows at three sizes.
  await db.raw(`DROP INDEX IF EXISTS ${orgVectorIndexName(org.id)}`);
  await buildOrgVectorIndex(db, org.id, { memoryMb: 512 });
  let pending = 0;
  for (const size of [1_000, 2_000, 5_000]) {
    const rate = await insert(db, maker, org, next, size - pending, true);
    next += size - pending;
    pending = size;
    await db.raw("ANALYZE document_chunks");
    const result = await measure(await truthOf());
    say(
      `tail of ${size.toLocaleString("en")} pending rows: their inserts ${fmt(rate)} rows/s; search recall@10 ${fmt(result.recall, 3)}, p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms`,
    );
  }
  const t0 = performance.now();
  const { rowCount } = await db.raw("UPDATE document_chunks SET vector_pending = false WHERE vector_pending");
  say(
    `fold of ${rowCount} rows into the ${(next - pending).toLocaleString("en")}-row graph in one statement: ${fmt(rowCount / ((performance.now() - t0) / 1000))} rows/s; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" / ")}`,
  );
} finally {
  await db.destroy();
  await database.stop();
}
