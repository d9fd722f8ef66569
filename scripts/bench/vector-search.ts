/**
 * Measure 5, vector search: latency and recall@10 of the tutor's query shape (org filter, cosine
 * distance, LIMIT 10) at N chunks of 384 dimensions where another organisation holds 90% of the
 * rows. Recall is against exact search (the same query with index scans off). Compared: pgvector's
 * defaults, the product's settings (db/queries/knowledge-search.ts) and tuned ones.
 */
import pg from "pg";
import { startBenchDatabase } from "./database";
import type { BenchSettings } from "./settings";
import { killOnExit } from "./stack";
import { fmt, percentile, table } from "./stats";

const DIMENSIONS = 384;
const K = 10;
const TARGET_SHARE = 0.1;
const TARGET_ORG = "00000000-0000-4000-8000-00000000000a";
const OTHER_ORG = "00000000-0000-4000-8000-00000000000b";

/** How a query is run: the settings applied with SET LOCAL first. */
interface Variant {
  label: string;
  settings: string[];
}

const VARIANTS: Variant[] = [
  { label: "pgvector defaults (ef_search 40)", settings: [] },
  {
    label: "ef_search 40 + iterative relaxed_order (the product before round 2)",
    settings: ["SET LOCAL hnsw.ef_search = 40", "SET LOCAL hnsw.iterative_scan = relaxed_order"],
  },
  {
    label: "ef_search 100 + iterative relaxed_order (the product, orgs above RETRIEVAL_EXACT_MAX_CHUNKS)",
    settings: ["SET LOCAL hnsw.ef_search = 100", "SET LOCAL hnsw.iterative_scan = relaxed_order"],
  },
  { label: "ef_search 200 + iterative relaxed_order", settings: ["SET LOCAL hnsw.ef_search = 200", "SET LOCAL hnsw.iterative_scan = relaxed_order"] },
];

/** Deterministic pseudo-random numbers, so every run searches the same data. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Clustered unit vectors (topics plus noise), closer to real embeddings than uniform noise. */
function vectorMaker(seed: number) {
  const random = rng(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centroids = Array.from({ length: 64 }, () => Array.from({ length: DIMENSIONS }, gaussian));
  return (): number[] => {
    const centre = centroids[Math.floor(random() * centroids.length)]!;
    const v = centre.map((c) => c + 0.9 * gaussian());
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
}

const literal = (v: number[]): string => `[${v.map((x) => x.toFixed(5)).join(",")}]`;

async function load(client: pg.Client, rows: number): Promise<{ loadSeconds: number; indexSeconds: number }> {
  await client.query("DROP TABLE IF EXISTS bench_chunks");
  await client.query(`CREATE TABLE bench_chunks (id serial PRIMARY KEY, org_id uuid NOT NULL, embedding vector(${DIMENSIONS}) NOT NULL)`);
  const next = vectorMaker(rows);
  const random = rng(7);
  const t0 = performance.now();
  const batch = 500;
  for (let start = 0; start < rows; start += batch) {
    const values: string[] = [];
    const params: string[] = [];
    for (let i = start; i < Math.min(rows, start + batch); i++) {
      params.push(random() < TARGET_SHARE ? TARGET_ORG : OTHER_ORG, literal(next()));
      values.push(`($${params.length - 1}, $${params.length}::vector)`);
    }
    await client.query(`INSERT INTO bench_chunks (org_id, embedding) VALUES ${values.join(",")}`, params);
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  // The product's index (db/migrations/…_knowledge.ts) and its org column index.
  await client.query("CREATE INDEX ON bench_chunks USING hnsw (embedding vector_cosine_ops)");
  await client.query("CREATE INDEX ON bench_chunks (org_id)");
  await client.query("ANALYZE bench_chunks");
  return { loadSeconds, indexSeconds: (performance.now() - t1) / 1000 };
}

const QUERY = `SELECT id FROM bench_chunks WHERE org_id = $1 ORDER BY embedding <=> $2::vector LIMIT ${K}`;

async function search(client: pg.Client, settings: string[], vector: string): Promise<{ ids: number[]; ms: number }> {
  const t0 = performance.now();
  await client.query("BEGIN");
  for (const statement of settings) await client.query(statement);
  const result = await client.query(QUERY, [TARGET_ORG, vector]);
  await client.query("COMMIT");
  return { ids: result.rows.map((row: { id: number }) => row.id), ms: performance.now() - t0 };
}

export async function measureVectorSearch(databaseUrl: string, rows: number, queries: number): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { loadSeconds, indexSeconds } = await load(client, rows);
    const next = vectorMaker(rows + 1);
    const probes = Array.from({ length: queries }, () => literal(next()));
    // Exact answers: index scans off, so the planner sorts every row of the org.
    const exact: number[][] = [];
    const exactMs: number[] = [];
    for (const probe of probes) {
      const result = await search(client, ["SET LOCAL enable_indexscan = off", "SET LOCAL enable_bitmapscan = on"], probe);
      exact.push(result.ids);
      exactMs.push(result.ms);
    }
    const resultRows: Array<Array<string | number>> = [
      ["exact over the org's rows (the product, orgs up to RETRIEVAL_EXACT_MAX_CHUNKS)", percentile(exactMs, 50), percentile(exactMs, 99), "1.000"],
    ];
    for (const variant of VARIANTS) {
      for (const probe of probes.slice(0, 5)) await search(client, variant.settings, probe);
      const ms: number[] = [];
      let found = 0;
      for (const [index, probe] of probes.entries()) {
        const result = await search(client, variant.settings, probe);
        ms.push(result.ms);
        const truth = new Set(exact[index]);
        found += result.ids.filter((id) => truth.has(id)).length;
      }
      resultRows.push([variant.label, percentile(ms, 50), percentile(ms, 99), fmt(found / (queries * K), 3)]);
    }
    const best = resultRows
      .slice(1)
      .filter((row) => Number(row[3]) >= 0.95)
      .sort((a, b) => Number(a[1]) - Number(b[1]))[0];
    const goal = best
      ? `Fastest setting with recall@10 ≥ 0.95: ${best[0]}, p50 ${fmt(Number(best[1]))} ms (goal at 100k: p50 ≤ 10 ms, ${Number(best[1]) <= 10 ? "**met**" : "**missed**"}).`
      : "No index setting reached recall@10 ≥ 0.95.";
    return [
      `**${rows.toLocaleString("en")} chunks** (${Math.round(rows * TARGET_SHARE).toLocaleString("en")} in the searched org, the rest in another): loaded in ${fmt(loadSeconds)} s (${fmt(rows / loadSeconds)} rows/s), HNSW (m 16, ef_construction 64) built in ${fmt(indexSeconds)} s; ${queries} queries, each in its own transaction like the product's.`,
      "",
      table(["search", "p50 (ms)", "p99 (ms)", "recall@10"], resultRows),
      "",
      goal,
    ].join("\n");
  } finally {
    await client.query("DROP TABLE IF EXISTS bench_chunks").catch(() => undefined);
    await client.end();
  }
}

export const vectorSearchModule = {
  name: "vector-search",
  title: "5. Vector search",
  async run(settings: BenchSettings): Promise<string> {
    const database = await startBenchDatabase();
    const databaseUrl = database.url;
    // A busy PGlite (building an index) cannot notice its parent is gone: kill it ourselves.
    const forget = database.pid ? killOnExit(database.pid) : () => undefined;
    const stop = () => database.stop().then(forget);
    try {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query("CREATE EXTENSION IF NOT EXISTS vector");
      const version = (await client.query("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).rows[0]?.extversion;
      await client.end();
      const parts = [`pgvector ${version}. The query is the tutor's: \`${QUERY}\`.`];
      for (const rows of settings.vectorSizes) parts.push(await measureVectorSearch(databaseUrl, rows, settings.vectorQueries));
      return parts.join("\n\n");
    } finally {
      await stop();
    }
  },
};
