/**
 * Question embeddings kept in Redis for EMBEDDING_QUERY_CACHE_TTL_SECONDS, so an employee who
 * asks again (or a colleague asking the same thing) costs no embedding call. Shared by every
 * worker process; a Redis fault only costs the call it would have saved.
 *
 * The entry is per organisation (`questionEmbedding` in queues/keys.ts:
 * `skillnet:query-embedding:<orgId>:<sha256(model, width, prefixes, text)>`). The vector is a
 * function of the text alone, so sharing it across organisations would be correct, but then
 * whether a question is cached (how fast its turn starts) would say whether someone in *another*
 * company asked it. Nothing in the entry's name says who asked, so each asker's index
 * (`questionsAsked`: `…:asked-by:<userId>`, a set of hashes with the same TTL) lists it: a
 * person's erasure removes the entries of the questions they asked and leaves the others. The
 * hash keeps question text out of key names.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisKey } from "../../queues/keys";

/** What the model is asked for, the cache's identity of a question. */
export interface QueryEmbeddingKey {
  orgId: string;
  /** Who asked (when someone did): their index lists the entry, so it goes with their erasure. */
  userId?: string;
  model: string;
  dimensions: number;
  /** The text as sent to the model (with any E5 prefix). */
  input: string;
}

/** Whitespace does not change a question's meaning, and copy-paste varies it; case and accents may, so they stay. */
const normalised = (text: string): string => text.normalize("NFC").replace(/\s+/g, " ").trim();

const digestOf = ({ model, dimensions, input }: Omit<QueryEmbeddingKey, "userId">): string =>
  createHash("sha256")
    .update(`${model}\u0000${dimensions}\u0000${normalised(input)}`)
    .digest("hex");

export class QueryEmbeddingCache {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly log?: Logger,
  ) {}

  keyOf(key: Omit<QueryEmbeddingKey, "userId">): string {
    return redisKey("questionEmbedding", this.redis.isCluster, { orgId: key.orgId, hash: digestOf(key) });
  }

  /** Notes that the person asked this question, so their erasure finds the entry. */
  private async noteAsker(key: QueryEmbeddingKey): Promise<void> {
    if (!key.userId) return;
    const index = redisKey("questionsAsked", this.redis.isCluster, { orgId: key.orgId, userId: key.userId });
    await this.redis.multi().sadd(index, digestOf(key)).expire(index, this.ttlSeconds).exec();
  }

  /** The cached vector, or undefined (also when Redis fails: the caller embeds instead). */
  async get(key: QueryEmbeddingKey): Promise<number[] | undefined> {
    if (this.ttlSeconds === 0) return undefined;
    try {
      const stored = await this.redis.getBuffer(this.keyOf(key));
      if (!stored || stored.length !== key.dimensions * 4) return undefined;
      await this.noteAsker(key);
      const copy = new Uint8Array(stored);
      return Array.from(new Float32Array(copy.buffer, copy.byteOffset, key.dimensions));
    } catch (error) {
      this.log?.warn({ err: error }, "query embedding cache unreadable; embedding the question");
      return undefined;
    }
  }

  /**
   * Stored as 32-bit floats: pgvector keeps `real`s, so the search reads the same vector either
   * way, at a quarter of the JSON's size.
   */
  async set(key: QueryEmbeddingKey, vector: number[]): Promise<void> {
    if (this.ttlSeconds === 0 || vector.length !== key.dimensions) return;
    try {
      // The asker first: an entry is never stored without the index its erasure reads.
      await this.noteAsker(key);
      await this.redis.set(this.keyOf(key), Buffer.from(new Float32Array(vector).buffer), "EX", this.ttlSeconds);
    } catch (error) {
      this.log?.warn({ err: error }, "could not cache a query embedding");
    }
  }
}
