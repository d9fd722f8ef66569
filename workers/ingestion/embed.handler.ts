/**
 * `ingest-embed`: embeds the run's drafts in batches (with the `passage: ` prefix), saving
 * each batch as it goes, so a worker that dies mid-way resumes where it stopped. When every
 * draft has a vector, one transaction swaps the document's chunks for the drafts and marks it
 * COMPLETED: search sees the old chunks or the new ones, never half of either.
 */
import { toVectorLiteral } from "../../db/knex";
import { recordTiming } from "../../db/queries/documents";
import { defineHandler } from "../registry";
import { announceProgress, loadRun, markFailed, moveTo, runStage } from "./ingest-run";

export const embedHandler = defineHandler({
  queue: "ingest-embed",
  perform: ({ data, deps, log }) =>
    runStage(deps, async () => {
      await loadRun(deps, data);
      const key = { document_id: data.documentId, generation: data.generation, org_id: data.orgId };
      const total = Number((await deps.db("document_chunk_drafts").where(key).count<{ count: string }[]>("* as count").first())?.count ?? 0);
      const remaining = () => deps.db("document_chunk_drafts").where(key).whereNull("embedding");
      let done = total - Number((await remaining().clone().count<{ count: string }[]>("* as count").first())?.count ?? 0);
      await moveTo(deps, data, "EMBEDDING", {}, { done, total });
      const started = performance.now();

      for (;;) {
        const batch = await remaining().clone().select("position", "content").orderBy("position").limit(deps.config.EMBED_BATCH_SIZE);
        if (batch.length === 0) break;
        const vectors = await deps.llm.embed(batch.map((row) => row.content as string), "passage", { orgId: data.orgId, userId: data.userId });
        await deps.db.transaction(async (trx) => {
          for (let i = 0; i < batch.length; i++) {
            await trx("document_chunk_drafts")
              .where({ ...key, position: batch[i]!.position })
              .update({ embedding: trx.raw("?::vector", [toVectorLiteral(vectors[i]!)]) });
          }
        });
        done += batch.length;
        announceProgress(deps, data, done, total);
      }

      const swapped = await deps.db.transaction(async (trx) => {
        const current = await trx("documents").where({ id: data.documentId, org_id: data.orgId }).forUpdate().first("ingest_generation", "status");
        if (!current || current.ingest_generation !== data.generation) return false;
        await trx("document_chunks").where({ document_id: data.documentId, org_id: data.orgId }).delete();
        await trx.raw(
          `INSERT INTO document_chunks (org_id, document_id, position, content, metadata, token_count, embedding)
           SELECT org_id, document_id, position, content, metadata, token_count, embedding
             FROM document_chunk_drafts WHERE document_id = ? AND generation = ? AND org_id = ?`,
          [data.documentId, data.generation, data.orgId],
        );
        await trx("document_chunk_drafts").where({ document_id: data.documentId }).delete();
        return true;
      });
      if (!swapped) return { superseded: true };
      await recordTiming(deps.db, data.orgId, data.documentId, "embed_ms", performance.now() - started);
      await moveTo(deps, data, "COMPLETED", { chunk_count: total, completed_at: deps.db.fn.now(), error: null }, { done: total, total });
      log.info({ chunks: total }, "document indexed");
      return { chunks: total };
    }),
  onFinalFailure: ({ data, deps }, error) => markFailed(deps, data, error),
});
