/**
 * Documents an integration keeps in step with their source (documents:write): PUT a version under
 * the source's own id, DELETE it when the source does, and list them so a sync client can diff
 * its folder against what is stored. The rules are commands/put-sourced-document.ts's; see
 * docs/integrations.md ("Documents from their source").
 */
import { putSourcedDocument } from "../../../commands/put-sourced-document";
import { deleteOrgDocument } from "../../../commands/delete-document";
import { renameDocumentSource } from "../../../commands/rename-sourced-document";
import { findDocumentByExternalId, listSourcedDocuments, type SourcedDocument } from "../../../db/queries/document-sources";
import type { DocumentRow } from "../../../db/queries/documents";
import { findOrganisation } from "../../../db/queries/organizations";
import { UPLOAD_FORMATS_TEXT } from "../../../lib/document-formats";
import { integrationActor, integrationCallerOf } from "../../auth/integration-key";
import { notFound } from "../../errors";
import { parseInput } from "../../validation";
import { defineRoute } from "../define-route";
import { readSingleUpload } from "../documents/multipart";
import { acceptedFormat } from "../documents/upload-document";
import { keyDocumentWindows, reindexAdmissionOf } from "./limits";
import {
  listSourcedDocumentsQuery,
  putSourcedDocumentFields,
  putSourcedDocumentResponse,
  renameSourcedDocumentBody,
  sourcedDocumentParams,
  sourcedDocumentResponse,
  sourcedDocumentsResponse,
} from "./schema";

function present(document: SourcedDocument | DocumentRow) {
  return {
    id: document.id,
    external_id: document.external_id ?? "",
    title: document.title,
    filename: document.filename,
    content_hash: document.content_hash,
    size_bytes: Number(document.size_bytes),
    status: document.status,
    error: document.error,
    error_code: document.error_code,
    updated_at: new Date(document.updated_at).toISOString(),
  };
}

const RESULT_STATUS = { created: 201, updated: 202, retried: 202, unchanged: 200 } as const;

export const integrationDocumentRoutes = [
  defineRoute({
    method: "put",
    path: "/api/v1/integrations/documents/:external_id",
    tag: "integrations",
    summary: `Store a version of the source's document (${UPLOAD_FORMATS_TEXT}) under its own id; only new bytes are indexed`,
    description:
      "multipart/form-data with `file` (up to UPLOAD_MAX_BYTES, within the storage quota) and optional `title` and `filename`. " +
      "An unknown id creates the document (201); the same bytes as its current version change nothing (200, `unchanged`; a version " +
      "that FAILED is indexed again, 202 `retried`); new bytes are indexed as a new version while the old one stays searchable, and " +
      "swapped in at once when indexed (202, `updated`). Bytes another document of the organisation already has are refused (409 " +
      "DOCUMENT_DUPLICATE, naming it). Each PUT counts as an upload against the key's window (RATE_LIMIT_UPLOADS_PER_MINUTE) and the " +
      "organisation's (RATE_LIMIT_ORG_UPLOADS_PER_MINUTE, shared with the console and every other key), and one that indexes again " +
      "(`updated`, `retried`) also as a re-index (RATE_LIMIT_REINDEX_PER_MINUTE, RATE_LIMIT_ORG_REINDEX_PER_MINUTE).",
    access: "integration",
    scope: "documents:write",
    params: sourcedDocumentParams,
    form: { type: "multipart", fields: putSourcedDocumentFields },
    rateLimited: true,
    use: (deps) => [keyDocumentWindows(deps)],
    responses: {
      201: { description: "Created and queued for indexing.", schema: putSourcedDocumentResponse },
      202: {
        description: "A new version (or a failed one again) queued for indexing; the version before stays searchable.",
        schema: putSourcedDocumentResponse,
      },
      200: { description: "The same bytes as the current version: nothing changed.", schema: putSourcedDocumentResponse },
    },
    errors: ["FILE_TOO_LARGE", "STORAGE_QUOTA_EXCEEDED", "UNSUPPORTED_MEDIA_TYPE", "UNSUPPORTED_FILE_TYPE", "DOCUMENT_DUPLICATE", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, { params: { external_id } }, deps) => {
      const caller = integrationCallerOf(ctx);
      const { file, fields } = await readSingleUpload(ctx, { field: "file", maxBytes: deps.config.server.UPLOAD_MAX_BYTES });
      const given = parseInput(putSourcedDocumentFields, fields, "body");
      const filename = (given.filename ?? file.originalname).replaceAll("\u0000", "").slice(0, 255) || "upload";
      const format = await acceptedFormat(file.buffer, filename);
      const { document, result } = await putSourcedDocument(deps, {
        orgId: caller.orgId,
        actor: integrationActor(caller),
        // The key's creator, an active admin right now (the key is refused otherwise): never a demoted one.
        uploaderId: caller.creatorId,
        externalId: external_id,
        filename,
        format,
        bytes: file.buffer,
        title: given.title,
        defaultQuotaBytes: deps.config.organisations.ORG_STORAGE_QUOTA_BYTES,
        admitReindex: reindexAdmissionOf(ctx),
      });
      ctx.status = RESULT_STATUS[result];
      ctx.body = { result, document: present(document) };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/v1/integrations/documents/:external_id",
    tag: "integrations",
    summary: "Give the source's document its new id (a renamed or moved file), keeping its chunks and vectors: nothing is re-indexed",
    access: "integration",
    scope: "documents:write",
    params: sourcedDocumentParams,
    body: renameSourcedDocumentBody,
    responses: { 200: { description: "The document under its new id.", schema: sourcedDocumentResponse } },
    errors: ["NOT_FOUND", "EXTERNAL_ID_TAKEN"],
    handler: async (ctx, { params: { external_id }, body }, deps) => {
      const caller = integrationCallerOf(ctx);
      const document = await renameDocumentSource(deps, { orgId: caller.orgId, from: external_id, to: body.external_id, actor: integrationActor(caller) });
      ctx.body = { document: present(document) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/v1/integrations/documents/:external_id",
    tag: "integrations",
    summary: "Remove the source's document: its chunks, vectors and file (a course it was the source of detaches)",
    access: "integration",
    scope: "documents:write",
    params: sourcedDocumentParams,
    responses: { 204: { description: "Removed." } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params: { external_id } }, deps) => {
      const caller = integrationCallerOf(ctx);
      const document = await findDocumentByExternalId(deps.db, caller.orgId, external_id);
      if (!document) throw notFound("Document");
      // The source removed its file: a course it was the source of detaches, as the summary says.
      await deleteOrgDocument(deps, { orgId: caller.orgId, documentId: document.id, actor: integrationActor(caller), force: true });
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/integrations/documents",
    tag: "integrations",
    summary: "The organisation's documents that have an external_id, by external_id, page by page (what a sync client diffs against)",
    access: "integration",
    scope: "documents:write",
    query: listSourcedDocumentsQuery,
    responses: { 200: { description: "One page, and the organisation the key belongs to.", schema: sourcedDocumentsResponse } },
    handler: async (ctx, { query }, deps) => {
      const { orgId } = integrationCallerOf(ctx);
      const [organisation, rows] = await Promise.all([findOrganisation(deps.db, orgId), listSourcedDocuments(deps.db, orgId, query)]);
      ctx.body = {
        organisation: { id: orgId, slug: organisation?.slug ?? "" },
        documents: rows.map(present),
        next_after: rows.length === query.limit ? (rows.at(-1)?.external_id ?? null) : null,
      };
    },
  }),
];
