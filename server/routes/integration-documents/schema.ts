/** Request and answer shapes of the documents an integration keeps in step with their source. */
import { z } from "zod";
import { DOCUMENT_STATUSES } from "../../../lib/document-status";

/** The caller's own id: a path relative to a folder, a drive item id… (URL-encode `/` as %2F). */
const externalId = z.string().min(1, "external_id must not be empty").max(500, "external_id must be at most 500 characters");

export const sourcedDocumentParams = z.object({ external_id: externalId });

/** Multipart fields beside `file`. */
export const putSourcedDocumentFields = z.strictObject({
  title: z.string().trim().min(1).max(300).optional().describe("The document's title; else the title the document gives itself, else the file name."),
  filename: z.string().trim().min(1).max(255).optional().describe("The name whose extension names the format; else the multipart file's name."),
});

/** PATCH: the document's new id at its source (a renamed or moved file). */
export const renameSourcedDocumentBody = z.strictObject({ external_id: externalId });

export const MAX_SOURCED_PAGE = 1000;

export const listSourcedDocumentsQuery = z.object({
  prefix: z.string().min(1).max(500).optional().describe("Only documents whose external_id starts with this (a sync's own, e.g. `handbook:`)."),
  after: externalId.optional().describe("The page after this external_id: the previous page's `next_after`."),
  limit: z.coerce.number().int().min(1).max(MAX_SOURCED_PAGE).default(500),
});

const sourcedDocument = z.strictObject({
  id: z.uuid(),
  external_id: z.string(),
  title: z.string(),
  filename: z.string(),
  content_hash: z.string().describe("SHA-256 of the latest bytes pushed, hex: a sync client compares its file's with it."),
  size_bytes: z.number(),
  status: z.enum(DOCUMENT_STATUSES).describe("The latest version's indexing; while it runs or after it FAILED, search serves the version before."),
  error: z.string().nullable(),
  error_code: z.string().nullable(),
  updated_at: z.string(),
});

export const sourcedDocumentsResponse = z.strictObject({
  organisation: z.strictObject({ id: z.uuid(), slug: z.string() }),
  documents: z.array(sourcedDocument),
  next_after: z.string().nullable().describe("Pass as `after` for the next page; null on the last one."),
});

export const putSourcedDocumentResponse = z.strictObject({
  result: z.enum(["created", "updated", "unchanged", "retried"]),
  document: sourcedDocument,
});

export const sourcedDocumentResponse = z.strictObject({ document: sourcedDocument });
