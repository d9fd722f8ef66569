/**
 * Creating, re-indexing and removing documents: the writes that start or end an ingestion
 * run. Each is one statement or one transaction, scoped to the org (the deadline sweep aside).
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { heldImportBytes } from "./catalog-imports";
import type { DocumentAccess, DocumentRow } from "./documents";

export interface NewUpload {
  orgId: string;
  uploadedBy: string;
  title: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
  contentHash: string;
  metadata: Record<string, unknown>;
  access: Partial<DocumentAccess>;
  /** A course whose source this document becomes. */
  courseId?: string | undefined;
  /** The caller's own id for it (a document kept in step with its source: document-sources.ts). */
  externalId?: string | undefined;
  /** The organisation's quota when it sets none of its own (ORG_STORAGE_QUOTA_BYTES). */
  defaultQuotaBytes: number;
}

/** The organisation's stored files and what it may store. */
export interface StorageUsage {
  usedBytes: number;
  quotaBytes: number;
}

/** An upload that would take the organisation past its storage quota; nothing was stored. */
export class StorageQuotaExceeded extends Error {
  constructor(
    readonly usage: StorageUsage,
    readonly uploadBytes: number,
  ) {
    super(`upload of ${uploadBytes} bytes exceeds the storage quota (${usage.usedBytes} of ${usage.quotaBytes} bytes used)`);
    this.name = "StorageQuotaExceeded";
  }
}

/**
 * What the organisation's documents take, with the bulk imports it holds until they end (the file,
 * then its records: catalog-imports.ts), and its quota (its own, else `defaultQuotaBytes`).
 */
export async function storageUsage(db: Db, orgId: string, defaultQuotaBytes: number): Promise<StorageUsage> {
  // One after another: `db` is often a transaction, whose one connection takes one query at a time.
  const org = await db("organizations").where({ id: orgId }).first<{ storage_quota_bytes: string | null } | undefined>("storage_quota_bytes");
  const used = await db("documents").where({ org_id: orgId }).sum<{ total: string | null }[]>({ total: "size_bytes" }).first();
  const imports = await heldImportBytes(db, orgId);
  return {
    usedBytes: Number(used?.total ?? 0) + imports,
    quotaBytes: org?.storage_quota_bytes != null ? Number(org.storage_quota_bytes) : defaultQuotaBytes,
  };
}

/**
 * Stores the document row and its bytes in one transaction (PENDING, generation 0), and makes it
 * the course's source when one is named. A concurrent upload of the same bytes fails on the
 * org's unique content hash (23505); the caller answers with the winner. The storage quota is
 * checked under a lock on the organisation's row, so concurrent uploads are counted one after
 * another and two cannot both take the last free bytes (StorageQuotaExceeded, nothing stored).
 */
export async function createUploadedDocument(trx: Knex.Transaction, upload: NewUpload): Promise<DocumentRow> {
  await trx("organizations").where({ id: upload.orgId }).forUpdate().first("id");
  const usage = await storageUsage(trx, upload.orgId, upload.defaultQuotaBytes);
  if (usage.usedBytes + upload.bytes.length > usage.quotaBytes) throw new StorageQuotaExceeded(usage, upload.bytes.length);
  const [row] = await trx("documents")
    .insert({
      org_id: upload.orgId,
      uploaded_by: upload.uploadedBy,
      title: upload.title,
      filename: upload.filename,
      mime_type: upload.mimeType,
      size_bytes: upload.bytes.length,
      content_hash: upload.contentHash,
      status: "PENDING",
      metadata: JSON.stringify(upload.metadata),
      ...(upload.externalId ? { external_id: upload.externalId } : {}),
      ...upload.access,
    })
    .returning("*");
  await trx("document_files").insert({ document_id: row.id, org_id: upload.orgId, bytes: upload.bytes });
  if (upload.courseId) await setCourseSourceDocument(trx, upload.orgId, upload.courseId, row.id);
  return row as DocumentRow;
}

export async function setCourseSourceDocument(db: Db, orgId: string, courseId: string, documentId: string): Promise<void> {
  await db("courses").where({ id: courseId, org_id: orgId }).update({ source_document_id: documentId });
}

/** Starts a new ingestion run: the next generation, back to PENDING. Undefined when the document is not in the org. */
export async function startReindex(db: Db, orgId: string, documentId: string): Promise<DocumentRow | undefined> {
  const [row] = (await db("documents")
    .where({ id: documentId, org_id: orgId })
    .update({
      ingest_generation: db.raw("ingest_generation + 1"),
      status: "PENDING",
      error: null,
      error_code: null,
      processing_started_at: null,
      updated_at: db.fn.now(),
    })
    .returning("*")) as DocumentRow[];
  return row;
}

/**
 * Fails every document still being indexed past the deadline. Spans organisations on purpose:
 * it is the maintenance sweep, it reads no content, and returns who to tell about each row.
 */
/**
 * Documents PENDING for longer than `olderThanMs` (oldest first, up to `limit`), across
 * organisations: the runs whose first stage may never have been queued (see
 * workers/maintenance/unqueued-documents.ts).
 */
export async function listLongPendingDocuments(
  db: Db,
  olderThanMs: number,
  limit: number,
): Promise<Array<{ id: string; org_id: string; uploaded_by: string | null; ingest_generation: number }>> {
  return db("documents")
    .select("id", "org_id", "uploaded_by", "ingest_generation")
    .where({ status: "PENDING" })
    .andWhereRaw("updated_at < now() - (? * interval '1 millisecond')", [olderThanMs])
    .orderBy("updated_at")
    .limit(limit);
}

export async function failOverdueDocuments(
  db: Db,
  inProgress: readonly string[],
  timeoutMs: number,
  failure: { error: string; error_code: string },
): Promise<Array<{ id: string; uploaded_by: string | null }>> {
  return (await db("documents")
    .whereIn("status", inProgress)
    .andWhereRaw("coalesce(processing_started_at, created_at) < now() - (? * interval '1 millisecond')", [timeoutMs])
    .update({ status: "FAILED", ...failure, updated_at: db.fn.now() })
    .returning(["id", "uploaded_by"])) as Array<{ id: string; uploaded_by: string | null }>;
}
