/**
 * `ingest-embed`: embeds the run's drafts in batches (with the `passage: ` prefix), saving
 * each batch as it goes, so a worker that dies mid-way resumes where it stopped. When every
 * draft has a vector, one transaction swaps the document's chunks for the drafts and marks it
 * COMPLETED: search sees the old chunks or the new ones, never half of either. A job that
 * runs again after that (a redelivery) finds the run completed and changes nothing.
 */
import { toVectorLiteral } from "../../db/knex";
import { recordTiming } from "../../db/queries/documents";
import { defineHandler } from "../registry";
import { announceProgress, markFailed, moveTo, runStage } from "./ingest-run";

const countOf = async (query: PromiseLike<Array<{ count: string | number }>>): Promise<number> => Number((await query)[0]?.count ?? 0);

export const embedHandler = defineHandler({
  queue: "ingest-embed",
  perform: ({ data, deps, log }) =>
    runStage(deps, data, async (run) => {
      if (run.document.status === "COMPLETED") return { alreadyCompleted: true };
      const key = { document_id: data.documentId, generation: data.generation, org_id: data.orgId };
      const drafts = () => deps.db("document_chunk_drafts").where(key);
      const total = await countOf(drafts().count("* as count"));
      if (total === 0) throw new Error("there are no chunks to embed; the chunk stage did not finish");
      let done = total - (await countOf(drafts().whereNull("embedding").count("* as count")));
      await moveTo(deps, data, run, "EMBEDDING", {}, { done, total });
      const started = performance.now();

      for (;;) {
        if (run.signal.aborted) return { aborted: true };
        const batch = await drafts().whereNull("embedding").select("position", "content").orderBy("position").limit(deps.config.EMBED_BATCH_SIZE);
        if (batch.length === 0) break;
        const vectors = await deps.llm.embed(batch.map((row) => row.content as string), "passage", { orgId: data.orgId, userId: data.userId });
        await deps.db.transaction(async (trx) => {
          for (let i = 0; i < batch.length; i++) {
            await trx("document_chunk_drafts").where({ ...key, position: batch[i]!.position }).update({ embedding: trx.raw("?::vector", [toVectorLiteral(vectors[i]!)]) });
          }
        });
        done += batch.length;
        announceProgress(deps, data, done, total);
      }
      if (run.signal.aborted) return { aborted: true };

      const swapped = await deps.db.transaction(async (trx) => {
        const current = await trx("documents").where({ id: data.documentId, org_id: data.orgId }).forUpdate().first("ingest_generation", "status");
        if (!current || current.ingest_generation !== data.generation || current.status !== "EMBEDDING") return false;
        await trx("document_chunks").where({ document_id: data.documentId, org_id: data.orgId }).delete();
        await trx.raw(
          `INSERT INTO document_chunks (org_id, document_id, position, content, metadata, token_count, embedding)
           SELECT org_id, document_id, position, content, metadata, token_count, embedding
             FROM document_chunk_drafts WHERE document_id = ? AND generation = ? AND org_id = ?`,
          [data.documentId, data.generation, data.orgId],
        );
        await trx("document_chunk_drafts").where({ document_id: data.documentId, org_id: data.orgId }).delete();
        await trx("documents")
          .where({ id: data.documentId, org_id: data.orgId })
          .update({ status: "COMPLETED", chunk_count: total, completed_at: trx.fn.now(), updated_at: trx.fn.now(), error: null, error_code: null });
        return true;
      });
      if (!swapped) return { superseded: true };
      deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status: "COMPLETED", progress: { done: total, total } });
      await recordTiming(deps.db, data.orgId, data.documentId, "embed_ms", performance.now() - started).catch((error) => log.warn({ err: error }, "could not record timing"));
      log.info({ chunks: total }, "document indexed");
      return { chunks: total };
    }),
  onFinalFailure: ({ data, deps }, error) => markFailed(deps, data, error),
});
