/** Documents and their ingestion state, always within one org. */
import type { Db } from "../knex";
import type { DocumentStatus } from "../../lib/document-status";

export interface DocumentRow {
  id: string;
  org_id: string;
  uploaded_by: string | null;
  title: string;
  filename: string;
  mime_type: string;
  size_bytes: string | number;
  content_hash: string;
  status: DocumentStatus;
  error: string | null;
  /** Stable code of a FAILED document (EXTRACTION_TIMEOUT, EXTRACTION_TOO_LARGE, …); null otherwise. */
  error_code: string | null;
  chunk_count: number;
  /** As stored: read it with `documentMetadata` (json-columns.ts). */
  metadata: unknown;
  ingest_generation: number;
  processing_started_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** Departments whose employees may read it; null = the whole org. */
  restricted_departments: string[] | null;
  /** Only enrollees of this course may read it; null = no course needed. */
  restricted_course_id: string | null;
  /** The source's own id for it when an integration keeps it in step (document-sources.ts); null for uploads. */
  external_id: string | null;
}

/** Who may read a document (db/queries/access.ts applies it); admins always may. */
export interface DocumentAccess {
  restricted_departments: string[] | null;
  restricted_course_id: string | null;
}

export const SUMMARY_COLUMNS = [
  "id",
  "org_id",
  "uploaded_by",
  "title",
  "filename",
  "mime_type",
  "size_bytes",
  "content_hash",
  "status",
  "error",
  "error_code",
  "chunk_count",
  "metadata",
  "ingest_generation",
  "processing_started_at",
  "created_at",
  "updated_at",
  "completed_at",
  "restricted_departments",
  "restricted_course_id",
  "external_id",
];

export async function findDocument(db: Db, orgId: string, documentId: string): Promise<DocumentRow | undefined> {
  return db("documents").select(SUMMARY_COLUMNS).where({ id: documentId, org_id: orgId }).first();
}

export async function findDocumentByHash(db: Db, orgId: string, contentHash: string): Promise<DocumentRow | undefined> {
  return db("documents").select(SUMMARY_COLUMNS).where({ org_id: orgId, content_hash: contentHash }).first();
}

export async function listDocuments(db: Db, orgId: string, status?: DocumentStatus): Promise<DocumentRow[]> {
  const query = db("documents").select(SUMMARY_COLUMNS).where({ org_id: orgId }).orderBy("created_at", "desc").limit(200);
  if (status) query.andWhere({ status });
  return query;
}

export async function coursesUsingDocument(db: Db, orgId: string, documentId: string): Promise<Array<{ id: string; title: string }>> {
  return db("courses").select("id", "title").where({ org_id: orgId, source_document_id: documentId });
}

/**
 * Moves a document to a status, but only for the ingestion run that asks (`generation`) and
 * only from one of the statuses in `from`, so a redelivered stage can never move it backwards.
 */
export async function setDocumentStatus(
  db: Db,
  { orgId, documentId, generation }: { orgId: string; documentId: string; generation: number },
  status: DocumentStatus,
  extra: Record<string, unknown> = {},
  from?: DocumentStatus[],
): Promise<boolean> {
  const query = db("documents").where({ id: documentId, org_id: orgId, ingest_generation: generation });
  if (from) query.whereIn("status", from);
  const updated = await query.update({ status, updated_at: db.fn.now(), ...extra });
  return updated > 0;
}

/** Adds timing figures (ms per stage, e.g. `{ extract_ms: 12 }`) to the document's metadata without losing the rest. */
export async function recordTiming(db: Db, orgId: string, documentId: string, timings: Record<string, number>): Promise<void> {
  const rounded = Object.fromEntries(Object.entries(timings).map(([stage, ms]) => [stage, Math.round(ms)]));
  await db.raw(
    `UPDATE documents SET metadata = jsonb_set(coalesce(metadata, '{}'::jsonb), '{timings}', coalesce(metadata->'timings', '{}'::jsonb) || ?::jsonb)
      WHERE id = ? AND org_id = ?`,
    [JSON.stringify(rounded), documentId, orgId],
  );
}
