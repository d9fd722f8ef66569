/**
 * `ingest-embed`: embeds the run's drafts in batches (with the `passage: ` prefix, and the
 * document title and heading above each chunk's text: embedding-text.ts), saving
 * each batch as it goes, so a worker that dies mid-way resumes where it stopped. When every
 * draft has a vector, one transaction swaps the document's chunks for the drafts and marks it
 * COMPLETED: search sees the old chunks or the new ones, never half of either. A job that
 * runs again after that (a redelivery) finds the run completed and changes nothing.
 * `embed_ms` times the whole stage, `store_ms` its database writes within it (the bench's
 * insert share).
 */
import { countChunkDrafts, nextUnembeddedDrafts, publishChunkDrafts, saveDraftEmbeddings } from "../../db/queries/chunk-drafts";
import { recordTiming } from "../../db/queries/documents";
import { defineHandler } from "../registry";
import { embeddingText } from "./embedding-text";
import { announceProgress, markFailed, moveTo, runStage } from "./ingest-run";

export const embedHandler = defineHandler({
  queue: "ingest-embed",
  perform: ({ data, deps, log }) =>
    runStage(deps, data, async (run) => {
      if (run.document.status === "COMPLETED") return { alreadyCompleted: true };
      const { total, unembedded } = await countChunkDrafts(deps.db, data);
      if (total === 0) throw new Error("there are no chunks to embed; the chunk stage did not finish");
      let done = total - unembedded;
      await moveTo(deps, data, run, "EMBEDDING", {}, { done, total });
      const started = performance.now();
      let storeMs = 0;
      const storing = async <T>(write: () => Promise<T>): Promise<T> => {
        const t0 = performance.now();
        try {
          return await write();
        } finally {
          storeMs += performance.now() - t0;
        }
      };

      for (;;) {
        if (run.signal.aborted) return { aborted: true };
        const batch = await nextUnembeddedDrafts(deps.db, data, deps.config.ingestion.EMBED_BATCH_SIZE);
        if (batch.length === 0) break;
        const texts = batch.map((row) => embeddingText(run.document.title, row.metadata?.heading, row.content));
        const vectors = await deps.llm.embed(texts, "passage", { orgId: data.orgId, userId: data.userId });
        await storing(() =>
          saveDraftEmbeddings(
            deps.db,
            data,
            batch.map((row, i) => ({ position: row.position, vector: vectors[i]! })),
          ),
        );
        done += batch.length;
        announceProgress(deps, data, done, total);
      }
      if (run.signal.aborted) return { aborted: true };

      const swapped = await storing(() => publishChunkDrafts(deps.db, data, total, deps.searchCaches.tailDecisions));
      if (!swapped) return { superseded: true };
      deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status: "COMPLETED", progress: { done: total, total } });
      await recordTiming(deps.db, data.orgId, data.documentId, { embed_ms: performance.now() - started, store_ms: storeMs }).catch((error) =>
        log.warn({ err: error }, "could not record timing"),
      );
      log.info({ chunks: total }, "document indexed");
      return { chunks: total };
    }),
  // A retry re-runs the stage as it is; only the final failure marks the document FAILED.
  onFailed: async ({ data, deps }, error, { final }) => {
    if (final) await markFailed(deps, data, error);
  },
});
