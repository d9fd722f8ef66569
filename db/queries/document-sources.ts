/**
 * Documents kept in step with their source (issue 33): a document named by the caller's own
 * `external_id` (unique within the org), whose bytes a new version replaces. The replaced bytes
 * start a new ingestion generation; the chunks searched stay the last indexed version's until
 * the new generation's swap (db/queries/chunk-drafts.ts publishChunkDrafts). Always within one org.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";
import { type DocumentRow, findDocument } from "./documents";
import { StorageQuotaExceeded, storageUsage } from "./document-lifecycle";

/** What a sync client diffs its folder against: one row per sourced document. */
export interface SourcedDocument {
  id: string;
  external_id: string;
  title: string;
  filename: string;
  content_hash: string;
  size_bytes: number;
  status: DocumentRow["status"];
  error: string | null;
  error_code: string | null;
  updated_at: Date;
}

export async function findDocumentByExternalId(db: Db, orgId: string, externalId: string): Promise<DocumentRow | undefined> {
  const row = await db("documents").where({ org_id: orgId, external_id: externalId }).first("id");
  return row ? findDocument(db, orgId, row.id as string) : undefined;
}

/**
 * One page of the org's sourced documents by external id (keyset: those after `after`), only
 * those whose id starts with `prefix` when given: a sync of one folder lists its own.
 */
export async function listSourcedDocuments(
  db: Db,
  orgId: string,
  page: { prefix?: string | undefined; after?: string | undefined; limit: number },
): Promise<SourcedDocument[]> {
  const query = db("documents")
    .select("id", "external_id", "title", "filename", "content_hash", "size_bytes", "status", "error", "error_code", "updated_at")
    .where({ org_id: orgId })
    .whereNotNull("external_id")
    .orderBy("external_id")
    .limit(page.limit);
  if (page.prefix) query.andWhereRaw("starts_with(external_id, ?)", [page.prefix]);
  if (page.after !== undefined) query.andWhere("external_id", ">", page.after);
  const rows: Array<Omit<SourcedDocument, "size_bytes"> & { size_bytes: string | number }> = await query;
  return rows.map((row) => ({ ...row, size_bytes: Number(row.size_bytes) }));
}

export interface NewVersion {
  orgId: string;
  documentId: string;
  bytes: Buffer;
  contentHash: string;
  filename: string;
  mimeType: string;
  /** Merged into the document's metadata (the format, where its title comes from). */
  metadata: Record<string, unknown>;
  /** A title the caller gave; undefined keeps the document's. */
  title: string | undefined;
  defaultQuotaBytes: number;
}

/**
 * Stores a new version's bytes and starts its ingestion run (the next generation, PENDING), in
 * one transaction. The old chunks and full text stay live until that run's swap; drafts of an
 * older run still in flight go (the run is superseded). The quota counts the new bytes in place
 * of the old ones, checked under the org row's lock like an upload (StorageQuotaExceeded, nothing
 * changed). That lock is taken last: a stage of this document's older run may hold its rows and
 * then need the org row for a foreign key (publishing chunks), so taking the org row first and
 * waiting for the document's would deadlock; the document row is locked FOR NO KEY UPDATE for the
 * same reason (its drafts' inserts reference it). Another document with the same bytes fails on
 * UNIQUE(org_id, content_hash) (23505). Undefined when the document is not in the org.
 */
export async function storeNewVersion(trx: Knex.Transaction, version: NewVersion): Promise<DocumentRow | undefined> {
  // NO KEY UPDATE: the older run's stages may still insert rows that reference this one (foreign keys take KEY SHARE).
  const current = await trx("documents").where({ id: version.documentId, org_id: version.orgId }).forNoKeyUpdate().first("size_bytes");
  if (!current) return undefined;
  await trx("document_chunk_drafts").where({ document_id: version.documentId, org_id: version.orgId }).delete();
  const [row] = (await trx("documents")
    .where({ id: version.documentId, org_id: version.orgId })
    .update({
      content_hash: version.contentHash,
      size_bytes: version.bytes.length,
      filename: version.filename,
      mime_type: version.mimeType,
      ...(version.title ? { title: version.title } : {}),
      metadata: trx.raw("coalesce(metadata, '{}'::jsonb) || ?::jsonb", [JSON.stringify(version.metadata)]),
      ingest_generation: trx.raw("ingest_generation + 1"),
      status: "PENDING",
      error: null,
      error_code: null,
      processing_started_at: null,
      updated_at: trx.fn.now(),
    })
    .returning("*")) as DocumentRow[];
  await trx("document_files")
    .insert({ document_id: version.documentId, org_id: version.orgId, bytes: version.bytes, extracted: null })
    .onConflict("document_id")
    .merge(["bytes", "extracted"]);
  await trx("organizations").where({ id: version.orgId }).forUpdate().first("id");
  const usage = await storageUsage(trx, version.orgId, version.defaultQuotaBytes);
  if (usage.usedBytes > usage.quotaBytes) {
    const before = { usedBytes: usage.usedBytes - version.bytes.length + Number(current.size_bytes), quotaBytes: usage.quotaBytes };
    throw new StorageQuotaExceeded(before, version.bytes.length);
  }
  return row;
}
