/**
 * `ingest-extract`: bytes → text, read in a limited thread (never on this event loop). Stores
 * `full_text` (the tutor's document rung reads it) and the sections.
 */
import { recordTiming } from "../../db/queries/documents";
import { defineHandler } from "../registry";
import { detectFormatFromRow } from "./format-of";
import { markFailed, moveTo, runStage } from "./ingest-run";
import { extractInThread } from "./isolation";

export const extractHandler = defineHandler({
  queue: "ingest-extract",
  perform: ({ data, deps, log }) =>
    runStage(deps, data, async (run) => {
      await moveTo(deps, data, run, "PROCESSING", { error: null, error_code: null, ...(run.document.processing_started_at ? {} : { processing_started_at: deps.db.fn.now() }) });
      const started = performance.now();
      const file = await deps.db("document_files").select("bytes").where({ document_id: data.documentId, org_id: data.orgId }).first();
      if (!file) throw new Error("the uploaded file is missing");
      const extracted = await extractInThread(file.bytes as Buffer, detectFormatFromRow(run.document), deps.config, run.signal);
      if (run.signal.aborted) return { aborted: true };
      await deps.db.transaction(async (trx) => {
        await trx("documents").where({ id: data.documentId, org_id: data.orgId }).update({ full_text: extracted.fullText, updated_at: trx.fn.now() });
        await trx("document_files").where({ document_id: data.documentId, org_id: data.orgId }).update({ extracted: JSON.stringify(extracted) });
      });
      await recordTiming(deps.db, data.orgId, data.documentId, "extract_ms", performance.now() - started);
      log.info({ sections: extracted.sections.length, chars: extracted.fullText.length }, "document extracted");
      await deps.producer.enqueue("ingest-chunk", data, { jobId: `${data.documentId}-g${data.generation}-chunk` });
      return { sections: extracted.sections.length };
    }),
  onFinalFailure: ({ data, deps }, error) => markFailed(deps, data, error),
});
