/**
 * Deterministic "hashed embeddings": a bag of words feature-hashed into a fixed number of
 * dimensions. No weights to download, yet texts that share words land near each other, which is
 * all retrieval needs to behave sensibly offline and in tests.
 */
import { contentWords } from "./text";

/**
 * The name the offline model answers embeddings with, whatever model the request named: the
 * Usage page and the eval results then say what made the vectors, not the E5 model they stand in for.
 */
export const hashedEmbeddingModel = (dimensions: number): string => `offline-hashed-bow-${dimensions}`;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over UTF-16 code units; `seed` gives independent hash functions. */
export function fnv1a(text: string, seed: number = FNV_OFFSET): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash >>> 0;
}

/** E5 models are fed `query: ` / `passage: `; the prefix must not count as a shared word. */
const E5_PREFIX = /^\s*(query|passage):\s*/i;

/** A shared 4-letter prefix is weaker evidence than a shared word, so "return"/"returns" overlap less than equal words. */
const PREFIX_WEIGHT = 0.5;

function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const bucket = fnv1a(feature) % vector.length;
  // A second, independent hash picks the sign, so collisions cancel out on average instead of piling up.
  const sign = fnv1a(feature, 0x9747b28c) & 1 ? -1 : 1;
  vector[bucket] = (vector[bucket] ?? 0) + sign * weight;
}

/** One unit-length vector of `dimensions` numbers. Empty (or stop-word-only) text maps to a fixed unit vector. */
export function hashedEmbedding(text: string, dimensions: number): number[] {
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  const vector = new Float64Array(dimensions);
  for (const word of contentWords(text.replace(E5_PREFIX, ""))) {
    addFeature(vector, `w:${word}`, 1);
    if (word.length >= 4) addFeature(vector, `p:${word.slice(0, 4)}`, PREFIX_WEIGHT);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) {
    const unit = new Array<number>(dimensions).fill(0);
    unit[0] = 1;
    return unit;
  }
  const scale = 1 / Math.sqrt(norm);
  return Array.from(vector, (value) => value * scale);
}

export function hashedEmbeddings(texts: string[], dimensions: number): number[][] {
  return texts.map((text) => hashedEmbedding(text, dimensions));
}

/** Cosine similarity; exported for tests and for start-up self-checks. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
