/**
 * The synthetic corpus of the vector-search benchmark: organisations of skewed sizes and
 * clustered 384-dimension unit vectors shaped like a document collection's embeddings.
 *
 * Sizes follow a Zipf law (exponent 0.8 over 200 organisations puts a tenth of the rows in the
 * largest, the 100k of 1M; the smallest gets ~0.14 %). Vectors are hierarchical: a topic
 * (shared across organisations, as real subject matter is), a document around its topic, and each
 * chunk around its document. Neighbouring chunks of one document are then close (cosine ≈ 0.85),
 * chunks of one topic less so (≈ 0.55) and unrelated ones near 0, the spread that gives recall@10
 * its meaning. Uniform noise, by contrast, has no true neighbours to find.
 */
import type { Db } from "../../db/knex";

export const DIMENSIONS = 384;
const TOPICS = 256;
const ZIPF_EXPONENT = 0.8;
const CHUNKS_PER_DOCUMENT = 24;
const DOCUMENT_SPREAD = 0.7;
const CHUNK_SPREAD = 0.5;

/** Deterministic pseudo-random numbers, so every run searches the same data. */
export function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function gaussianOf(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

/** Rows per organisation, largest first, summing to `total`. */
export function orgSizes(total: number, orgs: number): number[] {
  const weights = Array.from({ length: orgs }, (_, i) => (i + 1) ** -ZIPF_EXPONENT);
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((total * w) / sum)));
  sizes[0]! += total - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

/** The organisation ids of the benchmark: fixed, so a rerun reuses nothing by accident but reads alike. */
export function orgId(index: number): string {
  return `00000000-0000-4000-8000-${(index + 1).toString(16).padStart(12, "0")}`;
}

function unit(v: Float64Array): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => x / norm);
}

/** Makes the vectors of one organisation: its chunks document by document, and queries near them. */
export class CorpusMaker {
  private readonly gaussian: () => number;
  private readonly random: () => number;
  private readonly topics: Float64Array[];

  constructor(seed = 1) {
    this.random = rng(seed);
    this.gaussian = gaussianOf(this.random);
    this.topics = Array.from({ length: TOPICS }, () => Float64Array.from({ length: DIMENSIONS }, this.gaussian));
  }

  private around(centre: Float64Array, spread: number): Float64Array {
    const v = new Float64Array(DIMENSIONS);
    for (let d = 0; d < DIMENSIONS; d++) v[d] = centre[d]! + spread * this.gaussian();
    return v;
  }

  /** The document centres of an organisation of `rows` chunks (one per CHUNKS_PER_DOCUMENT). */
  documents(rows: number): Float64Array[] {
    const count = Math.max(1, Math.ceil(rows / CHUNKS_PER_DOCUMENT));
    return Array.from({ length: count }, () => this.around(this.topics[Math.floor(this.random() * TOPICS)]!, DOCUMENT_SPREAD));
  }

  /** Chunk `i` of the organisation whose documents are `documents` (chunks go document by document). */
  chunk(documents: Float64Array[], i: number): number[] {
    return unit(this.around(documents[Math.floor(i / CHUNKS_PER_DOCUMENT) % documents.length]!, CHUNK_SPREAD));
  }

  /** A question about one of the organisation's documents: as close to its chunks as a chunk is. */
  query(documents: Float64Array[]): number[] {
    return unit(this.around(documents[Math.floor(this.random() * documents.length)]!, CHUNK_SPREAD));
  }
}

export const vectorText = (v: number[]): string => `[${v.map((x) => x.toFixed(5)).join(",")}]`;

/** One documents row per entry of a corpus organisation's documents, 500 to an INSERT; their ids in the same order. */
export async function insertCorpusDocuments(db: Db, orgId: string, count: number, label: { title: string; hash: string }): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
      org_id: orgId,
      title: `${label.title} ${start + i}`,
      filename: "manual.pdf",
      mime_type: "application/pdf",
      size_bytes: 1,
      content_hash: `${label.hash}-${start + i}`,
      status: "COMPLETED",
    }));
    ids.push(...(await db("documents").insert(rows).returning("id")).map((row: { id: string }) => row.id));
  }
  return ids;
}
