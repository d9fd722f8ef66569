/**
 * `chat-attachment`: a file an employee attached to a tutor conversation, read the way company
 * documents are — extracted (and OCR'd) in the limited extraction thread, chunked there, embedded
 * — and stored as that conversation's passages, then `ready`. A file that cannot be read ends at
 * once (no retry would read it) as `failed` with the extraction's code, and the owner's sockets
 * hear `attachment_status {status: "failed", code: "ATTACHMENT_FAILED"}`; a failure of ours is
 * retried, and only its last attempt fails the attachment.
 */
import { UnrecoverableError } from "bullmq";
import { attachmentWithContent } from "../../db/queries/chat-attachments";
import { completeAttachment, failAttachment } from "../../db/queries/chat-attachment-writes";
import { ATTACHMENT_FAILED } from "../../lib/chat-attachment-limits";
import type { DocumentFormat } from "../../lib/document-formats";
import { embeddingText } from "../ingestion/embedding-text";
import { ExtractionError } from "../ingestion/extract/types";
import { failureReason, ingestFailureCode } from "../ingestion/ingest-run";
import { chunkingOptions, chunkInThread, extractInThread } from "../ingestion/isolation";
import { defineHandler } from "../registry";

class UnreadableAttachment extends UnrecoverableError {
  constructor(readonly extraction: ExtractionError) {
    super(extraction.message);
  }
}

export const readAttachmentHandler = defineHandler({
  queue: "chat-attachment",
  perform: async ({ data, deps, log }) => {
    const attachment = await attachmentWithContent(deps.db, data.orgId, data.attachmentId);
    // Deleted with its conversation (or its person) before it was read: nothing to do.
    if (attachment?.status !== "processing") return { skipped: true };
    try {
      const extracted = await extractInThread(attachment.content, attachment.format as DocumentFormat, deps.config, deps.log);
      const chunks = await chunkInThread(extracted, chunkingOptions(deps.config), deps.config, deps.log);
      const texts = chunks.map((chunk) => embeddingText(attachment.filename, chunk.heading, chunk.content));
      const vectors: number[][] = [];
      for (let from = 0; from < texts.length; from += deps.config.ingestion.EMBED_BATCH_SIZE) {
        const batch = texts.slice(from, from + deps.config.ingestion.EMBED_BATCH_SIZE);
        vectors.push(...(await deps.llm.embed(batch, "passage", { orgId: data.orgId, userId: data.userId })));
      }
      const stored = await completeAttachment(
        deps.db,
        data.orgId,
        data.attachmentId,
        data.sessionId,
        chunks.map((chunk, i) => ({
          content: chunk.content,
          metadata: { heading: chunk.heading, page_start: chunk.pageStart, page_end: chunk.pageEnd },
          embedding: vectors[i]!,
        })),
      );
      if (stored) deps.userEvents.emit(data.userId, "attachment_status", { attachmentId: data.attachmentId, sessionId: data.sessionId, status: "ready" });
      log.info({ attachmentId: data.attachmentId, chunks: chunks.length }, "attachment read");
      return { chunks: chunks.length };
    } catch (error) {
      if (error instanceof ExtractionError) throw new UnreadableAttachment(error);
      throw error;
    }
  },
  onFailed: async ({ data, deps }, error, { final }) => {
    if (!final) return;
    const cause = error instanceof UnreadableAttachment ? error.extraction : error;
    const failure = { code: ingestFailureCode(cause), reason: failureReason(cause) };
    if (await failAttachment(deps.db, data.orgId, data.attachmentId, failure)) {
      deps.userEvents.emit(data.userId, "attachment_status", {
        attachmentId: data.attachmentId,
        sessionId: data.sessionId,
        status: "failed",
        code: ATTACHMENT_FAILED,
        reason: failure.reason,
        reason_code: failure.code,
      });
    }
  },
});
