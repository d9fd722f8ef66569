/**
 * `ingest-extract`: bytes → text, read in a limited thread (never on this event loop). Stores
 * `full_text` (the tutor's document rung reads it), the sections, and the title the document
 * gives itself.
 */
import { saveExtraction, storedBytes } from "../../db/queries/document-files";
import { recordTiming } from "../../db/queries/documents";
import { defineHandler } from "../registry";
import { detectFormatFromRow } from "./format-of";
import { markFailed, moveTo, runStage } from "./ingest-run";
import { extractInThread } from "./isolation";

export const extractHandler = defineHandler({
  queue: "ingest-extract",
  perform: ({ data, deps, log }) =>
    runStage(deps, data, async (run) => {
      await moveTo(deps, data, run, "PROCESSING", {
        error: null,
        error_code: null,
        ...(run.document.processing_started_at ? {} : { processing_started_at: deps.db.fn.now() }),
      });
      const started = performance.now();
      const bytes = await storedBytes(deps.db, data.orgId, data.documentId);
      if (!bytes) throw new Error("the uploaded file is missing");
      const thread = { waitMs: 0, runMs: 0 };
      const extracted = await extractInThread(bytes, detectFormatFromRow(run.document), deps.config, deps.log, run.signal, thread);
      if (run.signal.aborted) return { aborted: true };
      // Also adopts the document's own title, unless the admin named it at upload.
      await saveExtraction(deps.db, data.orgId, data.documentId, extracted);
      await recordTiming(deps.db, data.orgId, data.documentId, { extract_ms: performance.now() - started, extract_wait_ms: thread.waitMs });
      log.info({ sections: extracted.sections.length, chars: extracted.fullText.length }, "document extracted");
      await deps.producer.enqueueIngestStage("ingest-chunk", data);
      return { sections: extracted.sections.length };
    }),
  // A retry re-runs the stage as it is; only the final failure marks the document FAILED.
  onFailed: async ({ data, deps }, error, { final }) => {
    if (final) await markFailed(deps, data, error);
  },
});
