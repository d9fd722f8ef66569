/** The documents API (admins): upload, list, inspect, restrict, delete and re-index company material. */
import { hasStoredFile } from "../../../db/queries/document-files";
import { reindexDocument } from "../../../commands/reindex-document";
import { storageUsage } from "../../../db/queries/document-lifecycle";
import { coursesUsingDocument, findDocument, listDocuments } from "../../../db/queries/documents";
import { changeDocumentAccess } from "../../../commands/change-document-access";
import { deleteOrgDocument } from "../../../commands/delete-document";
import { UPLOAD_FORMATS_TEXT } from "../../../lib/document-formats";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { Refusal } from "../../../lib/refusal";
import { RateLimiter } from "../../middleware/rate-limit";
import { parseInput } from "../../validation";
import type { Context } from "koa";
import { idempotent } from "../../middleware/idempotency";
import { documentResponse, documentsResponse, reindexResponse, uploadResponse } from "../../openapi/responses";
import { defineRoute } from "../define-route";
import { readSingleUpload, type UploadedFile } from "./multipart";
import { presentDocument } from "./present";
import { accessGiven, checkAccessCourse } from "./access";
import { deleteDocumentQuery, documentParams, listDocumentsQuery, patchDocumentBody, uploadFields } from "./schema";
import { acceptUpload, uploadFingerprint } from "./upload-document";
import { documentLimitsOf } from "../../middleware/organisation-limits";

// The body is read once: by the Idempotency-Key fingerprint when there is a key, else by the route.
const readUpload = (deps: ServerDeps, ctx: Context): Promise<{ file: UploadedFile; fields: Record<string, string> }> =>
  (ctx.state.upload ??= readSingleUpload(ctx, { field: "file", maxBytes: deps.config.server.UPLOAD_MAX_BYTES }));

function uploadOnce(deps: ServerDeps) {
  const limiter = new RateLimiter(deps.redis);
  return idempotent(deps.redis, {
    scope: "documents",
    // Before the body is read: a refused upload costs no parsing, storage or extraction; a replay costs no slot.
    admit: async (ctx) => {
      const principal = principalOf(ctx);
      return limiter.consumeFor(principal, "upload", await documentLimitsOf(deps, principal.orgId, "upload"));
    },
    fingerprint: async (ctx) => uploadFingerprint(await readUpload(deps, ctx)),
  });
}

export const documentRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/documents",
    tag: "documents",
    summary: `Upload a document (${UPLOAD_FORMATS_TEXT}) for indexing`,
    description:
      "multipart/form-data with `file` and optional fields. Up to UPLOAD_MAX_BYTES. The same bytes again in the same organisation " +
      "answer 200 with the existing document and queue nothing.",
    access: "admin",
    form: { type: "multipart", fields: uploadFields },
    idempotent: true,
    rateLimited: true,
    responses: {
      202: { description: "Stored and queued for indexing.", schema: uploadResponse },
      200: { description: "A duplicate of an existing document (`duplicate: true`).", schema: uploadResponse },
    },
    errors: ["FILE_TOO_LARGE", "STORAGE_QUOTA_EXCEEDED", "UNSUPPORTED_MEDIA_TYPE", "UNSUPPORTED_FILE_TYPE", "QUEUE_UNAVAILABLE"],
    use: (deps) => [uploadOnce(deps)],
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      const { file, fields } = await readUpload(deps, ctx);
      const { document, duplicate } = await acceptUpload(deps, principal, file, parseInput(uploadFields, fields, "body"));
      ctx.status = duplicate ? 200 : 202;
      ctx.body = { document_id: document.id, status: document.status, duplicate };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/documents",
    tag: "documents",
    summary: "List documents, newest first (up to 200)",
    access: "admin",
    query: listDocumentsQuery,
    responses: { 200: { description: "The documents.", schema: documentsResponse } },
    handler: async (ctx, { query: { status } }, deps) => {
      const orgId = principalOf(ctx).orgId;
      const [documents, storage] = await Promise.all([
        listDocuments(deps.db, orgId, status),
        storageUsage(deps.db, orgId, deps.config.organisations.ORG_STORAGE_QUOTA_BYTES),
      ]);
      ctx.body = {
        documents: documents.map((document) => presentDocument(document)),
        storage: { used_bytes: storage.usedBytes, quota_bytes: storage.quotaBytes },
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/documents/:id",
    tag: "documents",
    summary: "One document with its status, counts, access, timings and courses",
    access: "admin",
    params: documentParams,
    responses: { 200: { description: "The document.", schema: documentResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id } }, deps) => {
      const orgId = principalOf(ctx).orgId;
      const document = await findDocument(deps.db, orgId, id);
      if (!document) throw notFound("Document");
      ctx.body = presentDocument(document, { courses: await coursesUsingDocument(deps.db, orgId, id) });
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/v1/documents/:id",
    tag: "documents",
    summary: "Change who may read a document (only the keys given; null lifts a restriction)",
    access: "admin",
    params: documentParams,
    body: patchDocumentBody,
    responses: { 200: { description: "The document.", schema: documentResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { id }, body }, deps) => {
      const orgId = principalOf(ctx).orgId;
      const access = accessGiven(body);
      await checkAccessCourse(deps, orgId, access);
      const document = await changeDocumentAccess(deps, { orgId, documentId: id, actorId: principalOf(ctx).userId, access });
      ctx.body = presentDocument(document, { courses: await coursesUsingDocument(deps.db, orgId, id) });
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/documents/:id",
    tag: "documents",
    summary: "Delete a document with its chunks and file",
    description: "A course's source document is refused (409 DOCUMENT_IN_USE) unless `force=true`, which detaches it.",
    access: "admin",
    params: documentParams,
    query: deleteDocumentQuery,
    responses: { 204: { description: "Deleted." } },
    errors: ["NOT_FOUND", "DOCUMENT_IN_USE"],
    handler: async (ctx, { params: { id }, query: { force } }, deps) => {
      const principal = principalOf(ctx);
      await deleteOrgDocument(deps, { orgId: principal.orgId, documentId: id, actor: { type: "person", id: principal.userId }, force: force === "true" });
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/documents/:id/reindex",
    tag: "documents",
    summary: "Run the ingestion pipeline again for an uploaded document",
    access: "admin",
    params: documentParams,
    rateLimited: true,
    responses: { 202: { description: "Queued.", schema: reindexResponse } },
    errors: ["NOT_FOUND", "NO_SOURCE_FILE", "QUEUE_UNAVAILABLE"],
    use: (deps) => {
      const limiter = new RateLimiter(deps.redis);
      return [
        async (ctx, next) => {
          const principal = principalOf(ctx);
          await limiter.consumeFor(principal, "reindex", await documentLimitsOf(deps, principal.orgId, "reindex"));
          await next();
        },
      ];
    },
    handler: async (ctx, { params: { id } }, deps) => {
      const principal = principalOf(ctx);
      if (!(await findDocument(deps.db, principal.orgId, id))) throw notFound("Document");
      if (!(await hasStoredFile(deps.db, principal.orgId, id)))
        throw new Refusal("conflict", "NO_SOURCE_FILE", "This document has no uploaded file to re-index (it was seeded from text)");
      const document = await reindexDocument(deps, principal.orgId, id, principal.userId);
      if (!document) throw notFound("Document");
      ctx.status = 202;
      ctx.body = { document_id: id, status: "PENDING", generation: document.ingest_generation };
    },
  }),
];
