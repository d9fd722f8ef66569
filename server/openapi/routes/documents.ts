/** The documents API (admins): company material the tutor answers from. */
import { deleteDocumentQuery, documentParams, listDocumentsQuery, patchDocumentBody, uploadFields } from "../../routes/documents/schema";
import { defineRoutes } from "../registry";
import { documentResponse, documentsResponse, reindexResponse, uploadResponse } from "../responses";

export const documentRoutes = defineRoutes([
  {
    method: "post",
    path: "/api/v1/documents",
    tag: "documents",
    summary: "Upload a document (PDF, DOCX, PPTX, TXT, Markdown, HTML, CSV) for indexing",
    description:
      "multipart/form-data with `file` and optional fields. Up to UPLOAD_MAX_BYTES. The same bytes again in the same organisation " +
      "answer 200 with the existing document and queue nothing.",
    access: "admin",
    body: uploadFields,
    bodyType: "multipart",
    idempotent: true,
    rateLimited: true,
    responses: {
      202: { description: "Stored and queued for indexing.", schema: uploadResponse },
      200: { description: "A duplicate of an existing document (`duplicate: true`).", schema: uploadResponse },
    },
    errors: ["FILE_TOO_LARGE", "STORAGE_QUOTA_EXCEEDED", "UNSUPPORTED_MEDIA_TYPE", "UNSUPPORTED_FILE_TYPE", "QUEUE_UNAVAILABLE"],
  },
  {
    method: "get",
    path: "/api/v1/documents",
    tag: "documents",
    summary: "List documents, newest first (up to 200)",
    access: "admin",
    query: listDocumentsQuery,
    responses: { 200: { description: "The documents.", schema: documentsResponse } },
  },
  {
    method: "get",
    path: "/api/v1/documents/:id",
    tag: "documents",
    summary: "One document with its status, counts, access, timings and courses",
    access: "admin",
    params: documentParams,
    responses: { 200: { description: "The document.", schema: documentResponse } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "patch",
    path: "/api/v1/documents/:id",
    tag: "documents",
    summary: "Change who may read a document (only the keys given; null lifts a restriction)",
    access: "admin",
    params: documentParams,
    body: patchDocumentBody,
    responses: { 200: { description: "The document.", schema: documentResponse } },
    errors: ["NOT_FOUND"],
  },
  {
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
  },
  {
    method: "post",
    path: "/api/v1/documents/:id/reindex",
    tag: "documents",
    summary: "Run the ingestion pipeline again for an uploaded document",
    access: "admin",
    params: documentParams,
    rateLimited: true,
    responses: { 202: { description: "Queued.", schema: reindexResponse } },
    errors: ["NOT_FOUND", "NO_SOURCE_FILE", "QUEUE_UNAVAILABLE"],
  },
]);
