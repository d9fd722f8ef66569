/** The JSON shape of a document in API responses. */
import type { DocumentRow } from "../../../db/queries/documents";
import { documentMetadata } from "../../../db/queries/json-columns";

export function presentDocument(document: DocumentRow, extra: { courses?: Array<{ id: string; title: string }> } = {}) {
  const metadata = documentMetadata.parse(document.metadata);
  const timings = metadata.timings ?? {};
  const total = document.completed_at && document.created_at ? new Date(document.completed_at).getTime() - new Date(document.created_at).getTime() : null;
  return {
    id: document.id,
    title: document.title,
    filename: document.filename,
    mime_type: document.mime_type,
    format: metadata.format ?? null,
    size_bytes: Number(document.size_bytes),
    status: document.status,
    error: document.error,
    error_code: document.error_code,
    counts: { chunks: document.chunk_count },
    access: { restricted_departments: document.restricted_departments ?? null, restricted_course_id: document.restricted_course_id ?? null },
    timings: { ...timings, total_ms: total },
    created_at: document.created_at,
    updated_at: document.updated_at,
    completed_at: document.completed_at,
    ...(extra.courses ? { courses: extra.courses } : {}),
  };
}
