/**
 * Chunk drafts: the chunks of one (re)index run, written by `ingest-chunk`, embedded by
 * `ingest-embed`, then swapped in for the document's chunks in one transaction. Keyed by the
 * run (document + generation), always within one org.
 */
import type { LRUCache } from "lru-cache";
import { toVectorLiteral, type Db } from "../knex";
import { chunkMetadata, type ChunkMetadata } from "./json-columns";
import { chunksEnterVectorTail } from "./org-vector-indexes";

export interface IndexRun {
  orgId: string;
  documentId: string;
  generation: number;
}

export interface ChunkDraft {
  position: number;
  content: string;
  tokenCount: number;
  metadata: Record<string, unknown>;
}

const draftsOf = (db: Db, run: IndexRun) => db("document_chunk_drafts").where({ document_id: run.documentId, generation: run.generation, org_id: run.orgId });

/** Replaces the run's drafts atomically, so a redelivered chunk job writes the same rows again instead of adding more. */
export async function replaceChunkDrafts(db: Db, run: IndexRun, drafts: ChunkDraft[]): Promise<void> {
  await db.transaction(async (trx) => {
    await draftsOf(trx, run).delete();
    for (let i = 0; i < drafts.length; i += 200) {
      await trx("document_chunk_drafts").insert(
        drafts.slice(i, i + 200).map((draft) => ({
          document_id: run.documentId,
          org_id: run.orgId,
          generation: run.generation,
          position: draft.position,
          content: draft.content,
          token_count: draft.tokenCount,
          metadata: JSON.stringify(draft.metadata),
        })),
      );
    }
  });
}

/** How many drafts the run has, and how many of them still lack a vector. */
export async function countChunkDrafts(db: Db, run: IndexRun): Promise<{ total: number; unembedded: number }> {
  const [total, unembedded] = await Promise.all([draftsOf(db, run).count("* as count"), draftsOf(db, run).whereNull("embedding").count("* as count")]);
  return { total: Number(total[0]?.count ?? 0), unembedded: Number(unembedded[0]?.count ?? 0) };
}

/** The next drafts without a vector, in order: what the embed stage works through (with the heading it embeds alongside). */
export async function nextUnembeddedDrafts(
  db: Db,
  run: IndexRun,
  limit: number,
): Promise<Array<{ position: number; content: string; metadata: ChunkMetadata }>> {
  const rows: Array<{ position: number; content: string; metadata: unknown }> = await draftsOf(db, run)
    .whereNull("embedding")
    .select("position", "content", "metadata")
    .orderBy("position")
    .limit(limit);
  return rows.map((row) => ({ ...row, metadata: chunkMetadata.parse(row.metadata) }));
}

/**
 * Saves one batch of vectors, so a worker that dies mid-way resumes after the last saved batch.
 * One UPDATE for the batch (positions and vectors as two arrays): a statement per row was a
 * round trip per chunk.
 */
export async function saveDraftEmbeddings(db: Db, run: IndexRun, embedded: Array<{ position: number; vector: number[] }>): Promise<void> {
  if (embedded.length === 0) return;
  await db.raw(
    `UPDATE document_chunk_drafts d SET embedding = v.embedding::vector
       FROM unnest(?::int[], ?::text[]) AS v(position, embedding)
      WHERE d.document_id = ? AND d.generation = ? AND d.org_id = ? AND d.position = v.position`,
    [embedded.map((row) => row.position), embedded.map((row) => toVectorLiteral(row.vector)), run.documentId, run.generation, run.orgId],
  );
}

/**
 * Swaps the document's chunks (and full text) for the run's drafts and marks it COMPLETED, in one
 * transaction: search sees the old chunks or the new ones, never half of either. False (nothing changed)
 * when a newer run superseded this one or the document has moved on from EMBEDDING.
 */
export async function publishChunkDrafts(db: Db, run: IndexRun, chunkCount: number, tailDecisions?: LRUCache<string, boolean>): Promise<boolean> {
  return db.transaction(async (trx) => {
    const current = await trx("documents").where({ id: run.documentId, org_id: run.orgId }).forUpdate().first("ingest_generation", "status");
    if (!current || current.ingest_generation !== run.generation || current.status !== "EMBEDDING") return false;
    await trx("document_chunks").where({ document_id: run.documentId, org_id: run.orgId }).delete();
    // Into the org's vector tail when it has an HNSW index: the graph takes them later, off this insert (db/queries/org-vector-indexes.ts).
    const pending = await chunksEnterVectorTail(trx, run.orgId, tailDecisions);
    await trx.raw(
      `INSERT INTO document_chunks (org_id, document_id, position, content, metadata, token_count, embedding, vector_pending)
       SELECT org_id, document_id, position, content, metadata, token_count, embedding, ?
         FROM document_chunk_drafts WHERE document_id = ? AND generation = ? AND org_id = ?`,
      [pending, run.documentId, run.generation, run.orgId],
    );
    await trx("document_chunk_drafts").where({ document_id: run.documentId, org_id: run.orgId }).delete();
    // The run's full text goes live with its chunks (saveExtraction keeps a live version's until now); a document seeded from text has no file and keeps its own.
    const fullText = trx.raw("coalesce((SELECT f.extracted->>'fullText' FROM document_files f WHERE f.document_id = ? AND f.org_id = ?), full_text)", [
      run.documentId,
      run.orgId,
    ]);
    await trx("documents").where({ id: run.documentId, org_id: run.orgId }).update({
      status: "COMPLETED",
      chunk_count: chunkCount,
      full_text: fullText,
      completed_at: trx.fn.now(),
      updated_at: trx.fn.now(),
      error: null,
      error_code: null,
    });
    return true;
  });
}

/** Indexed documents (all orgs, or one): what `npm run reembed` re-vectorises. */
export async function listIndexedDocuments(
  db: Db,
  orgId?: string,
): Promise<Array<{ id: string; org_id: string; uploaded_by: string | null; ingest_generation: number }>> {
  const query = db("documents").select("id", "org_id", "uploaded_by", "ingest_generation").where("chunk_count", ">", 0);
  if (orgId) query.andWhere({ org_id: orgId });
  return query;
}

/**
 * Starts a re-embedding run: the next generation, straight to EMBEDDING, with the current
 * chunks copied as its drafts (text unchanged, vectors to be made). Search keeps serving the
 * old chunks until `publishChunkDrafts` swaps them.
 */
export async function startReembedRun(db: Db, run: IndexRun): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("documents")
      .where({ id: run.documentId, org_id: run.orgId })
      .update({ ingest_generation: run.generation, status: "EMBEDDING", processing_started_at: trx.fn.now(), error: null, error_code: null });
    await trx("document_chunk_drafts").where({ document_id: run.documentId, org_id: run.orgId }).delete();
    await trx.raw(
      `INSERT INTO document_chunk_drafts (document_id, org_id, generation, position, content, metadata, token_count)
       SELECT document_id, org_id, ?, position, content, metadata, token_count FROM document_chunks WHERE document_id = ? AND org_id = ?`,
      [run.generation, run.documentId, run.orgId],
    );
  });
}
