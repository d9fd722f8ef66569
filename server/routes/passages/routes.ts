/**
 * Citations that open their passage. `GET /api/v1/chat/messages/:id/passage?index=n` shows the
 * passage source [n] of one of the caller's own answers was built from (text, document,
 * heading, page); `GET /api/v1/library/documents/:id/original` serves the document itself. Both
 * read under the retrieval rule (db/queries/access.ts): what the caller may not read now, or
 * what is gone (re-indexed, deleted), is 404 like anything else that is not theirs.
 */
import { findOwnAnswer } from "../../../db/queries/chat-feedback";
import type { StoredSource } from "../../../db/queries/message-metadata";
import { readableChunk, readableDocumentText, readableOriginal, usableLesson, type Passage } from "../../../db/queries/cited-passages";
import { ownAttachmentPassage } from "../../../db/queries/chat-attachments";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { defineRoute } from "../define-route";
import { answerParams, documentParams, passageQuery, passageResponse } from "./schema";

/** A whole document shown as a citation: its beginning, which is what the model read first. */
const DOCUMENT_PREVIEW_CHARS = 8_000;

async function passageOf(deps: ServerDeps, reader: { orgId: string; userId: string }, source: StoredSource): Promise<Passage | undefined> {
  if (!source.sourceId) return undefined;
  if (source.sourceType === "document_chunk") return readableChunk(deps.db, reader, source.sourceId);
  if (source.sourceType === "document") return readableDocumentText(deps.db, reader, source.sourceId, DOCUMENT_PREVIEW_CHARS);
  if (source.sourceType === "lesson") return usableLesson(deps.db, reader, source.sourceId);
  if (source.sourceType === "attachment") {
    const passage = await ownAttachmentPassage(deps.db, reader, source.sourceId);
    return passage && { ...passage, title: passage.filename, documentId: null, truncated: false };
  }
  // `progress` sources are the learner's own records, summarised at answer time: no passage to open.
  return undefined;
}

export const originalUrl = (documentId: string): string => `/api/v1/library/documents/${documentId}/original`;

export const passageRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/chat/messages/:id/passage",
    tag: "chat",
    summary: "The passage citation [index] of one of your answers points to",
    description:
      "Read again under the retrieval rule: a passage you may not read now, one that is gone (its document re-indexed or deleted), a progress source, or someone else's answer is 404.",
    access: "bearer",
    params: answerParams,
    query: passageQuery,
    responses: { 200: { description: "The passage.", schema: passageResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id }, query: { index } }, deps) => {
      const reader = principalOf(ctx);
      const answer = await findOwnAnswer(deps.db, reader, id);
      const sources = answer?.metadata.sources ?? [];
      const source = sources.find((s) => s.index === index);
      const passage = source && (await passageOf(deps, reader, source));
      if (!source || !passage) throw notFound("Passage");
      ctx.body = {
        index,
        source_type: source.sourceType,
        document_id: passage.documentId,
        title: passage.title,
        heading: passage.heading,
        page_start: passage.pageStart,
        page_end: passage.pageEnd,
        text: passage.text,
        truncated: passage.truncated,
        original_url: passage.documentId ? originalUrl(passage.documentId) : null,
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/library/documents/:id/original",
    tag: "documents",
    summary: "The original document, for anyone who may read it",
    description:
      "The uploaded file (HTML and other active types as application/octet-stream), or the text of a document seeded without a file. 404 for a document the caller may not read.",
    access: "bearer",
    params: documentParams,
    responses: { 200: { description: "The file.", contentType: "application/octet-stream" } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      const original = await readableOriginal(deps.db, principalOf(ctx), id);
      if (!original || (!original.bytes && original.fullText === null)) throw notFound("Document");
      const filename = original.bytes ? original.filename : `${original.title}.txt`;
      ctx.set("Content-Disposition", `inline; filename*=UTF-8''${encodeURIComponent(filename)}`);
      ctx.set("X-Content-Type-Options", "nosniff");
      // Uploaded bytes are served as they are, but never as HTML the browser would run on our origin.
      ctx.type = original.bytes ? safeType(original.mimeType) : "text/plain; charset=utf-8";
      ctx.body = original.bytes ?? original.fullText;
    },
  }),
];

function safeType(mimeType: string | null): string {
  if (!mimeType || /html|xml|svg|javascript/i.test(mimeType)) return "application/octet-stream";
  return mimeType;
}
