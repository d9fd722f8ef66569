/**
 * Measure 5, vector search at scale: the product's own schema (its migrations), search
 * (db/queries/knowledge-search.ts vectorSearch, with its join and access filter) and index sweep
 * (workers/maintenance/vector-indexes.ts), over a corpus of N chunks of 384 dimensions across 200
 * organisations of Zipf-skewed sizes (scripts/bench/vector-corpus.ts; at 1M the largest holds
 * 100k). Reported per organisation-size bucket: recall@10 against exact search, latency p50/p99
 * of exact search and of the product's path (exact up to RETRIEVAL_EXACT_MAX_CHUNKS, the org's
 * own HNSW index above), ef_search variants on the index path; the index builds' time; the
 * planner's plan for the largest org; and the insert rate into the full table against the
 * empty one (same rows, same batches): as the product writes them (into the org's vector tail when
 * it has an index, db/queries/org-vector-indexes.ts), and, for comparison, straight into the
 * graphs, from one connection and from two; then the rate at which the sweep folds the tails into
 * the graphs, and the search figures again once they are folded.
 */
import os from "node:os";
import { createDb, type Db } from "../../db/knex";
import { migrateLatest } from "../../db/migrator";
import { ORG_INDEX_EF_SEARCH, vectorSearch, vectorSearchCache, vectorSearchPlan, type VectorSearchOptions } from "../../db/queries/knowledge-search";
import { buildOrgVectorIndex, chunksEnterVectorTail, orgVectorIndexName, vectorTailDecisions } from "../../db/queries/org-vector-indexes";

/** The tail decisions a worker would remember (its deps); a phase that changes the indexes starts a fresh one. */
let tailDecisions = vectorTailDecisions();
import { getConfig } from "../../lib/config";
import { buildMissingVectorIndexes, foldVectorTails } from "../../workers/maintenance/vector-indexes";
import { currentEngine, startBenchDatabase } from "./database";
import type { BenchSettings } from "./settings";
import { killOnExit } from "./stack";
import { fmt, percentile, table } from "./stats";
import { CorpusMaker, insertCorpusDocuments, orgSizes, vectorText } from "./vector-corpus";

const K = 10;
const ORGS = 200;
const INSERT_BATCH = 500;
/** Rows inserted (and timed) into the empty table first and into the full one at the end. */
const PROBE_ROWS = 10_000;
/** Probes into the mix: empty, empty with indexes, full straight into the graphs (one connection, then two), full as the product writes. */
const PROBES = 5;
const BUCKETS = [1_000, 2_000, 5_000, 10_000, 25_000, 50_000, Number.POSITIVE_INFINITY];
const ORGS_PER_BUCKET = 3;
const VOCABULARY = Array.from({ length: 2_000 }, (_, i) => `w${i.toString(36)}`);

interface Org {
  index: number;
  id: string;
  readerId: string;
  size: number;
  documents: Float64Array[];
  documentIds: string[];
  /** Chunks written so far (their positions run document by document). */
  written: number;
}

const bucketOf = (size: number): string => {
  const upper = BUCKETS.find((limit) => size <= limit)!;
  const lower = BUCKETS[BUCKETS.indexOf(upper) - 1] ?? 0;
  return upper === Number.POSITIVE_INFINITY ? `> ${lower.toLocaleString("en")}` : `${(lower + 1).toLocaleString("en")}–${upper.toLocaleString("en")}`;
};

async function createOrgs(db: Db, maker: CorpusMaker, sizes: number[]): Promise<Org[]> {
  const orgs: Org[] = [];
  for (const [index, size] of sizes.entries()) {
    const [org] = await db("organizations")
      .insert({ name: `Bench org ${index}`, slug: `bench-org-${index}` })
      .returning("id");
    const [reader] = await db("users")
      .insert({ org_id: org.id, email: `reader-${index}@bench.example`, name: "Reader", role: "admin" })
      .returning("id");
    const documents = maker.documents(size);
    const documentIds = await insertCorpusDocuments(db, org.id, documents.length, { title: "Manual", hash: `bench-${index}` });
    orgs.push({ index, id: org.id, readerId: reader.id, size, documents, documentIds, written: 0 });
  }
  return orgs;
}

const CHUNKS_PER_DOCUMENT = 24;

function chunkText(org: Org, i: number): string {
  let seed = org.index * 1_000_003 + i * 7919 + 1;
  const words = Array.from({ length: 40 }, () => VOCABULARY[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % VOCABULARY.length]!);
  return words.join(" ");
}

/**
 * How a probe's rows are written: as publishChunkDrafts does (`product`: into the org's tail when
 * chunksEnterVectorTail says so, the decision's lookups timed with the insert), or all straight
 * into the graphs (`direct`: what every insert did before the tail).
 */
type InsertMode = "product" | "direct";

/** Inserts `count` chunks, each for an org drawn in proportion to the rows it has left; returns the seconds spent in INSERT. */
async function insertChunks(db: Db, maker: CorpusMaker, count: number, pick: () => Org | undefined, mode: InsertMode = "product"): Promise<number> {
  let seconds = 0;
  let left = count;
  while (left > 0) {
    const values: string[] = [];
    const params: unknown[] = [];
    const batchOrgs: Org[] = [];
    for (let b = 0; b < INSERT_BATCH && left > 0; b++) {
      const org = pick();
      if (!org) {
        left = 0;
        break;
      }
      const i = org.written++;
      left--;
      const documentId = org.documentIds[Math.floor(i / CHUNKS_PER_DOCUMENT) % org.documentIds.length];
      params.push(org.id, documentId, i, chunkText(org, i), vectorText(maker.chunk(org.documents, i)));
      batchOrgs.push(org);
    }
    if (batchOrgs.length === 0) break;
    const t0 = performance.now();
    const pending = new Map<string, boolean>();
    for (const org of new Set(batchOrgs)) pending.set(org.id, mode === "product" && (await chunksEnterVectorTail(db, org.id, tailDecisions)));
    for (const org of batchOrgs) values.push(`(?::uuid, ?::uuid, ?, ?, ?::vector, ${pending.get(org.id)})`);
    await db.raw(
      `INSERT INTO document_chunks (org_id, document_id, position, content, embedding, vector_pending) VALUES ${values.join(",")}`,
      params as never[],
    );
    seconds += (performance.now() - t0) / 1000;
  }
  return seconds;
}

/** Draws orgs in proportion to the chunks each still has to receive (the corpus grows interleaved, as real uploads do). */
function proportionalPicker(orgs: Org[], random: () => number): () => Org | undefined {
  let remaining = orgs.reduce((sum, org) => sum + org.size - org.written, 0);
  return () => {
    if (remaining <= 0) return undefined;
    let r = random() * remaining;
    for (const org of orgs) {
      const left = org.size - org.written;
      if (r < left) {
        remaining--;
        return org;
      }
      r -= left;
    }
    return undefined;
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t0 };
}

export async function measureVectorSearch(databaseUrl: string, total: number, queries: number): Promise<string> {
  const db = createDb({ url: databaseUrl, poolMax: 4 });
  try {
    await migrateLatest(db);
    const config = getConfig();
    const exactUpTo = config.retrieval.RETRIEVAL_EXACT_MAX_CHUNKS;
    const maker = new CorpusMaker(total);
    const sizes = orgSizes(total, ORGS);
    const orgs = await createOrgs(db, maker, sizes);
    let seed = 7;
    const random = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;

    // The same mix of rows, timed into the empty table (bare, then with an empty index for every
    // org that will pass the limit: like for like with the full table) and, at the end, into the full one.
    const probeRows = Math.min(PROBE_ROWS, Math.floor(total / 10));
    const pick = proportionalPicker(orgs, random);
    // Warm-up (connections, caches, the first pages of every index), untimed.
    await insertChunks(db, maker, 2 * INSERT_BATCH, pick);
    const emptySeconds = await insertChunks(db, maker, probeRows, pick);
    const willBeLarge = orgs.filter((org) => org.size > exactUpTo);
    for (const org of willBeLarge) await buildOrgVectorIndex(db, org.id, { memoryMb: config.retrieval.VECTOR_INDEX_BUILD_MEMORY_MB });
    const emptyIndexedSeconds = await insertChunks(db, maker, probeRows, pick, "direct");
    for (const org of willBeLarge) await db.raw(`DROP INDEX ${orgVectorIndexName(org.id)}`);
    tailDecisions = vectorTailDecisions();
    const loadStarted = performance.now();
    await insertChunks(db, maker, total - PROBES * probeRows - 2 * INSERT_BATCH, pick);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    // What publishChunkDrafts records, and the sweep sums.
    await db.raw("UPDATE documents d SET chunk_count = (SELECT count(*) FROM document_chunks c WHERE c.org_id = d.org_id AND c.document_id = d.id)");
    await db.raw("VACUUM ANALYZE document_chunks");

    // The sweep, as the maintenance worker runs it, without its per-run time budget.
    const needing = orgs.filter((org) => org.written > exactUpTo).length;
    const unbounded = { runMs: Number.POSITIVE_INFINITY, foldMs: Number.POSITIVE_INFINITY };
    const build = await timed(() => buildMissingVectorIndexes({ db, config }, unbounded));
    const largest = orgs[0]!;
    const largestBuild = await timed(async () => {
      await db.raw(`DROP INDEX IF EXISTS ${orgVectorIndexName(largest.id)}`);
      return buildMissingVectorIndexes({ db, config }, unbounded);
    });
    await db.raw("ANALYZE document_chunks");
    tailDecisions = vectorTailDecisions();

    // Before the tail: every row of an indexed org into its graph at once, from one connection and from two.
    const directSeconds = await insertChunks(db, maker, probeRows, pick, "direct");
    const concurrent = await timed(() =>
      Promise.all([insertChunks(db, maker, probeRows / 2, pick, "direct"), insertChunks(db, maker, probeRows / 2, pick, "direct")]),
    );
    const fullSeconds = await insertChunks(db, maker, probeRows, pick);
    const tailRows = Number((await db.raw("SELECT count(*) AS n FROM document_chunks WHERE vector_pending")).rows[0].n);
    const largestTail = Number((await db.raw("SELECT count(*) AS n FROM document_chunks WHERE vector_pending AND org_id = ?", [largest.id])).rows[0].n);
    // The same number of rows into the orgs still below the limit: what the table's size alone costs an insert.
    const small = orgs.filter((org) => org.size <= exactUpTo);
    const fullSmallSeconds = small.length > 0 ? await insertChunks(db, maker, probeRows, () => small[Math.floor(random() * small.length)]) : Number.NaN;
    const written = orgs.reduce((sum, org) => sum + org.written, 0);
    await db.raw("ANALYZE document_chunks");

    // Searches: a few orgs per size bucket, questions near their documents.
    const byBucket = new Map<string, Org[]>();
    for (const org of orgs) byBucket.set(bucketOf(org.written), [...(byBucket.get(bucketOf(org.written)) ?? []), org]);
    const perOrg = Math.max(5, Math.round(queries / ORGS_PER_BUCKET));
    const options = (org: Org, embedding: number[], upTo: number): VectorSearchOptions => ({
      reader: { orgId: org.id, userId: org.readerId },
      embedding,
      limit: K,
      minSimilarity: -1,
      exactUpTo: upTo,
    });
    const run = async (org: Org, probes: number[][], upTo: number, efSearch?: number) => {
      // A fresh memory of the org's size and index, as a worker would fill it over the warm-up searches.
      const cache = vectorSearchCache();
      const search = (embedding: number[]) => vectorSearch(db, { ...options(org, embedding, upTo), efSearch, cache });
      for (const probe of probes.slice(0, 3)) await search(probe);
      const ms: number[] = [];
      const ids: string[][] = [];
      for (const probe of probes) {
        const { value, ms: took } = await timed(() => search(probe));
        ms.push(took);
        ids.push(value.map((hit) => hit.id));
      }
      return { ms, ids };
    };
    const recall = (found: string[][], truth: string[][]) =>
      found.reduce((sum, ids, i) => sum + ids.filter((id) => new Set(truth[i]).has(id)).length, 0) / (truth.length * K);

    const rows: Array<Array<string | number>> = [];
    const efRows: Array<Array<string | number>> = [];
    const foldedRows: Array<Array<string | number>> = [];
    const measured: Array<{ bucket: string; org: Org; probes: number[][]; truth: string[][] }> = [];
    const exactAll = Number.MAX_SAFE_INTEGER;
    for (const [bucket, members] of [...byBucket.entries()].sort((a, b) => a[1][0]!.written - b[1][0]!.written)) {
      const chosen = [members[0]!, members[Math.floor(members.length / 2)]!, members.at(-1)!].filter((org, i, all) => all.indexOf(org) === i);
      const exactMs: number[] = [];
      const productMs: number[] = [];
      const found: string[][] = [];
      const truth: string[][] = [];
      const paths = new Set<string>();
      const efSamples = new Map<number, { ms: number[]; found: string[][]; truth: string[][] }>();
      for (const org of chosen) {
        const probes = Array.from({ length: perOrg }, () => maker.query(org.documents));
        const exact = await run(org, probes, exactAll);
        const product = await run(org, probes, exactUpTo);
        measured.push({ bucket, org, probes, truth: exact.ids });
        const path = (await vectorSearchPlan(db, options(org, probes[0]!, exactUpTo))).path;
        paths.add(path);
        exactMs.push(...exact.ms);
        productMs.push(...product.ms);
        truth.push(...exact.ids);
        found.push(...product.ids);
        if (path === "org-index") {
          for (const ef of [40, 100, 200]) {
            const variant = await run(org, probes, exactUpTo, ef);
            const sample = efSamples.get(ef) ?? { ms: [], found: [], truth: [] };
            sample.ms.push(...variant.ms);
            sample.found.push(...variant.ids);
            sample.truth.push(...exact.ids);
            efSamples.set(ef, sample);
          }
        }
      }
      const sizesShown = chosen.map((org) => org.written.toLocaleString("en")).join(", ");
      const r = recall(found, truth);
      rows.push([
        bucket,
        sizesShown,
        [...paths].join(" / "),
        percentile(exactMs, 50),
        percentile(exactMs, 99),
        percentile(productMs, 50),
        percentile(productMs, 99),
        fmt(r, 3),
        r >= 0.95 && percentile(productMs, 50) <= 10 && percentile(productMs, 99) <= 30 ? "met" : "**missed**",
      ]);
      for (const [ef, sample] of efSamples)
        efRows.push([bucket, ef, percentile(sample.ms, 50), percentile(sample.ms, 99), fmt(recall(sample.found, sample.truth), 3)]);
    }

    // The sweep folds the tails (the product probe's rows) into the graphs; then the product's path again, on the same questions.
    const fold = await timed(() => foldVectorTails({ db }, Number.POSITIVE_INFINITY));
    await db.raw("ANALYZE document_chunks");
    for (const bucket of new Set(measured.map((entry) => entry.bucket))) {
      const entries = measured.filter((entry) => entry.bucket === bucket);
      const ms: number[] = [];
      const found: string[][] = [];
      const truth: string[][] = [];
      for (const entry of entries) {
        const after = await run(entry.org, entry.probes, exactUpTo);
        ms.push(...after.ms);
        found.push(...after.ids);
        truth.push(...entry.truth);
      }
      foldedRows.push([bucket, percentile(ms, 50), percentile(ms, 99), fmt(recall(found, truth), 3)]);
    }

    const plan = await vectorSearchPlan(db, options(largest, maker.query(largest.documents), exactUpTo));
    const usesIndex = plan.plan.includes(`Index Scan using ${orgVectorIndexName(largest.id)}`);
    const emptyRate = probeRows / emptySeconds;
    const fullRate = probeRows / fullSeconds;
    const emptyIndexedRate = probeRows / emptyIndexedSeconds;
    const directRate = probeRows / directSeconds;
    const concurrentRate = probeRows / (concurrent.ms / 1000);
    const foldRate = fold.value / (fold.ms / 1000);
    const tableBytes = (await db.raw("SELECT pg_total_relation_size('document_chunks') AS bytes")).rows[0].bytes as string;
    return [
      `**${written.toLocaleString("en")} chunks over ${ORGS} organisations** (Zipf 0.8: largest ${largest.written.toLocaleString("en")}, smallest ${orgs.at(-1)!.written.toLocaleString("en")}), 384 dimensions, the product's \`document_chunks\` (${fmt(Number(tableBytes) / 2 ** 30, 2)} GiB with its indexes). RETRIEVAL_EXACT_MAX_CHUNKS ${exactUpTo.toLocaleString("en")}; load average when measured ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" / ")}.`,
      "",
      `- **Load:** ${fmt(total - PROBES * probeRows)} rows in ${fmt(loadSeconds)} s (${fmt((total - PROBES * probeRows) / loadSeconds)} rows/s with generating the vectors, multi-row INSERTs of ${INSERT_BATCH}, before any HNSW index).`,
      `- **Index builds** (the \`vector-indexes\` sweep, CREATE INDEX CONCURRENTLY, m 16, ef_construction 64, maintenance_work_mem ${config.retrieval.VECTOR_INDEX_BUILD_MEMORY_MB} MB): ${build.value.built.length} of ${needing} organisations above the limit in ${fmt(build.ms / 1000)} s; the largest (${largest.written.toLocaleString("en")} chunks) alone ${fmt(largestBuild.ms / 1000)} s.`,
      `- **Insert rate**, ${probeRows.toLocaleString("en")} rows a probe in batches of ${INSERT_BATCH}, the corpus's mix (${fmt((100 * willBeLarge.reduce((sum, org) => sum + org.size, 0)) / total)} % of rows into orgs above the limit). Empty table (no HNSW index yet): ${fmt(emptyRate)} rows/s. **Full table, as the product writes (new chunks of an indexed org into its tail): ${fmt(fullRate)} rows/s = ${fmt((100 * fullRate) / emptyRate)} %** of the empty table's (goal ≥ 80 %: ${fullRate >= 0.8 * emptyRate ? "met" : "**missed**"}). For comparison, straight into the graphs: full table ${fmt(directRate)} rows/s (${fmt((100 * directRate) / emptyRate)} %), from two connections at once ${fmt(concurrentRate)} rows/s (${fmt((100 * concurrentRate) / emptyRate)} %, wall time with generating the vectors); the empty table with those orgs' (empty) indexes ${fmt(emptyIndexedRate)} rows/s. Rows into orgs below the limit (no HNSW index) into the full table: ${fmt(probeRows / fullSmallSeconds)} rows/s = ${fmt((100 * probeRows) / fullSmallSeconds / emptyRate)} %.`,
      fold.value === 0
        ? "- **Fold:** no pending rows (no organisation above the limit received any)."
        : `- **Fold** (the sweep moves the tails into the graphs, ${fold.value.toLocaleString("en")} rows, ${tailRows.toLocaleString("en")} pending when the searches below ran, ${largestTail.toLocaleString("en")} of them the largest org's): ${fmt(fold.ms / 1000)} s = **${fmt(foldRate)} rows/s** on one connection, the background's rate of taking new chunks into the graphs.`,
      plan.path === "exact"
        ? "- **Planner:** the largest org is at most RETRIEVAL_EXACT_MAX_CHUNKS (or has no index yet): searched exactly."
        : `- **Planner**, the largest org's search: ${usesIndex ? `uses \`${orgVectorIndexName(largest.id)}\`` : "**does not use its index**"} (\`${(plan.plan.split("\n").find((line) => line.includes(`Scan using ${orgVectorIndexName(largest.id)}`)) ?? "").trim()}\`).`,
      "",
      `Per organisation size, ${perOrg} questions per org on up to ${ORGS_PER_BUCKET} orgs of each bucket, one at a time, with the tails unfolded (the product probe's rows pending); recall@10 of the product's search against exact search (the same query, exact path forced):`,
      "",
      table(
        ["org size (chunks)", "orgs measured", "product path", "exact p50 (ms)", "exact p99 (ms)", "product p50 (ms)", "product p99 (ms)", "recall@10", "goal"],
        rows,
      ),
      "",
      "After the fold (the same questions, the product's path):",
      "",
      table(["org size (chunks)", "product p50 (ms)", "product p99 (ms)", "recall@10"], foldedRows),
      "",
      ...(efRows.length === 0
        ? []
        : [
            `The org's own index at other \`hnsw.ef_search\` values (the product's is ${ORG_INDEX_EF_SEARCH}, db/queries/knowledge-search.ts):`,
            "",
            table(["org size (chunks)", "ef_search", "p50 (ms)", "p99 (ms)", "recall@10"], efRows),
          ]),
    ].join("\n");
  } finally {
    await db.destroy();
  }
}

export const vectorSearchModule = {
  name: "vector-search",
  title: "5. Vector search",
  async run(settings: BenchSettings): Promise<string> {
    const database = await startBenchDatabase();
    // A busy PGlite (building an index) cannot notice its parent is gone: kill it ourselves.
    const forget = database.pid ? killOnExit(database.pid) : () => undefined;
    try {
      const chunks = currentEngine() === "pglite" ? settings.vectorChunksPglite : settings.vectorChunks;
      const version = await (async () => {
        const db = createDb({ url: database.url, poolMax: 1 });
        try {
          await db.raw("CREATE EXTENSION IF NOT EXISTS vector");
          return (await db("pg_extension").where({ extname: "vector" }).first("extversion"))?.extversion as string;
        } finally {
          await db.destroy();
        }
      })();
      return [`pgvector ${version}.`, "", await measureVectorSearch(database.url, chunks, settings.vectorQueries)].join("\n");
    } finally {
      await database.stop().then(forget);
    }
  },
};
