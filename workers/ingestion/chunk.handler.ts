/**
 * `ingest-chunk`: sections → chunk drafts for this run, replaced atomically so a redelivered
 * job writes the same rows again instead of adding more. Queues embedding with a fair-share cost
 * by size (queues/fair-share.ts), so an organisation's large document leaves others more turns.
 */
import { replaceChunkDrafts } from "../../db/queries/chunk-drafts";
import { storedExtraction } from "../../db/queries/document-files";
import { recordTiming } from "../../db/queries/documents";
import { defineHandler } from "../registry";
import { ExtractionError, NO_TEXT_MESSAGE } from "./extract/types";
import { markFailed, moveTo, runStage } from "./ingest-run";
import { chunkInThread, chunkingOptions } from "./isolation";

/** A document's embedding costs its organisation one fair-share turn per embeddings request it makes. */
const embedCost = (chunks: number, batchSize: number): number => Math.max(1, Math.ceil(chunks / batchSize));

export const chunkHandler = defineHandler({
  queue: "ingest-chunk",
  perform: ({ data, deps, log }) =>
    runStage(deps, data, async (run) => {
      await moveTo(deps, data, run, "CHUNKING");
      const started = performance.now();
      const extracted = await storedExtraction(deps.db, data.orgId, data.documentId);
      if (!extracted) throw new Error("extracted text is missing; the extract stage did not finish");
      const thread = { waitMs: 0, runMs: 0 };
      const chunks = await chunkInThread(extracted, chunkingOptions(deps.config), deps.config, deps.log, run.signal, thread);
      // Only headings and no body: nothing to search, and another attempt would find the same.
      if (chunks.length === 0) throw new ExtractionError(NO_TEXT_MESSAGE);
      if (run.signal.aborted) return { aborted: true };
      await replaceChunkDrafts(
        deps.db,
        data,
        chunks.map((chunk) => ({
          position: chunk.position,
          content: chunk.content,
          tokenCount: chunk.tokenCount,
          metadata: { heading: chunk.heading, page_start: chunk.pageStart, page_end: chunk.pageEnd, position: chunk.position },
        })),
      );
      await recordTiming(deps.db, data.orgId, data.documentId, { chunk_ms: performance.now() - started, chunk_wait_ms: thread.waitMs });
      log.info({ chunks: chunks.length }, "document chunked");
      await deps.producer.enqueueIngestStage("ingest-embed", data, embedCost(chunks.length, deps.config.ingestion.EMBED_BATCH_SIZE));
      return { chunks: chunks.length };
    }),
  // A retry re-runs the stage as it is; only the final failure marks the document FAILED.
  onFailed: async ({ data, deps }, error, { final }) => {
    if (final) await markFailed(deps, data, error);
  },
});
