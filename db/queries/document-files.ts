/** The uploaded bytes of a document and what extraction made of them, always within one org. */
import type { Db } from "../knex";
import { storedExtraction as storedExtractionSchema, type StoredExtraction } from "./json-columns";

export async function hasStoredFile(db: Db, orgId: string, documentId: string): Promise<boolean> {
  return Boolean(await db("document_files").where({ document_id: documentId, org_id: orgId }).first("document_id"));
}

export async function storedBytes(db: Db, orgId: string, documentId: string): Promise<Buffer | undefined> {
  const row = await db("document_files").select("bytes").where({ document_id: documentId, org_id: orgId }).first();
  return row?.bytes as Buffer | undefined;
}

/**
 * The extract stage's result (sections and all), or null when that stage has not finished — or
 * what is stored is not an extraction this release reads: the chunk stage then fails the
 * document with its reason rather than chunking something else.
 */
export async function storedExtraction(db: Db, orgId: string, documentId: string): Promise<StoredExtraction | null> {
  const row = await db("document_files").select("extracted").where({ document_id: documentId, org_id: orgId }).first();
  return storedExtractionSchema.safeParse(row?.extracted).data ?? null;
}

/**
 * Stores an extraction: the sections beside the file, the full text on the document (the tutor's
 * document rung reads it) unless the document already has live chunks — then the full text of
 * the version they come from stays until the new run's swap takes this one
 * (chunk-drafts.ts publishChunkDrafts), so a new version that fails leaves the old one whole —
 * and the document's own title unless an admin named it (`metadata.title_source`; rows from
 * before that key count as admin-named unless the title is still the file name).
 */
export async function saveExtraction(db: Db, orgId: string, documentId: string, extracted: { fullText: string; title?: string | null }): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("documents")
      .where({ id: documentId, org_id: orgId })
      .update({ full_text: trx.raw("CASE WHEN chunk_count = 0 THEN ? ELSE full_text END", [extracted.fullText]), updated_at: trx.fn.now() });
    await trx("document_files")
      .where({ document_id: documentId, org_id: orgId })
      .update({ extracted: JSON.stringify(extracted) });
    if (extracted.title) {
      await trx("documents")
        .where({ id: documentId, org_id: orgId })
        .andWhere((q) =>
          q
            .whereRaw("metadata->>'title_source' IN ('filename', 'document')")
            .orWhereRaw("metadata->>'title_source' IS NULL AND title = regexp_replace(filename, '\\.[^.]+$', '')"),
        )
        .update({ title: extracted.title, metadata: trx.raw(`coalesce(metadata, '{}'::jsonb) || '{"title_source":"document"}'::jsonb`) });
    }
  });
}
