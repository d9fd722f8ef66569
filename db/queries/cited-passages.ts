/**
 * What a citation opens: the passage the tutor was given, re-read for a reader under the same
 * rule as retrieval (db/queries/access.ts), so a citation never shows more than a search would
 * today. A passage that is gone (its document re-indexed or deleted) or no longer readable is
 * undefined, and the caller answers 404 either way.
 */
import type { Db } from "../knex";
import { courseUsableBy, readableBy, type Reader } from "./access";
import { chunkMetadata } from "./json-columns";

export interface Passage {
  text: string;
  documentId: string | null;
  title: string;
  heading: string | null;
  pageStart: number | null;
  pageEnd: number | null;
  /** The whole document was given, cut to fit: this is its beginning. */
  truncated: boolean;
}

export async function readableChunk(db: Db, reader: Reader, chunkId: string): Promise<Passage | undefined> {
  const row = await db("document_chunks as c")
    .join("documents as d", (on) => on.on("d.id", "c.document_id").andOn("d.org_id", "c.org_id"))
    .where({ "c.id": chunkId, "c.org_id": reader.orgId })
    .andWhereRaw("?", [readableBy(db, reader, "d")])
    .first("c.content", "c.metadata", "d.id as document_id", "d.title");
  if (!row) return undefined;
  const meta = chunkMetadata.parse(row.metadata);
  return {
    text: row.content,
    documentId: row.document_id,
    title: row.title,
    heading: meta.heading ?? null,
    pageStart: meta.page_start ?? null,
    pageEnd: meta.page_end ?? null,
    truncated: false,
  };
}

/** The beginning of a whole document (the `document` rung gives the model the text from its start). */
export async function readableDocumentText(db: Db, reader: Reader, documentId: string, maxChars: number): Promise<Passage | undefined> {
  const row = await db("documents as d")
    .where({ "d.id": documentId, "d.org_id": reader.orgId })
    .andWhereRaw("?", [readableBy(db, reader, "d")])
    .first("d.id", "d.title", db.raw("substr(coalesce(d.full_text, ''), 1, ?) as text", [maxChars]), db.raw("length(coalesce(d.full_text, '')) as length"));
  if (!row) return undefined;
  return { text: row.text, documentId: row.id, title: row.title, heading: null, pageStart: null, pageEnd: null, truncated: Number(row.length) > maxChars };
}

export async function usableLesson(db: Db, reader: Reader, lessonId: string): Promise<Passage | undefined> {
  const row = await db("lessons as l")
    .join("courses as c", (on) => on.on("c.id", "l.course_id").andOn("c.org_id", "l.org_id"))
    .join("modules as m", "m.id", "l.module_id")
    .where({ "l.id": lessonId, "l.org_id": reader.orgId })
    .andWhereRaw("?", [courseUsableBy(db, reader, "c")])
    .first("l.title", "l.content", "c.title as course_title", "m.title as module_title");
  if (!row) return undefined;
  return {
    text: row.content,
    documentId: null,
    title: row.course_title,
    heading: `${row.module_title} › ${row.title}`,
    pageStart: null,
    pageEnd: null,
    truncated: false,
  };
}

export interface OriginalDocument {
  title: string;
  filename: string;
  mimeType: string | null;
  /** The uploaded file; null for a document seeded from text (then `fullText` is all there is). */
  bytes: Buffer | null;
  fullText: string | null;
}

export async function readableOriginal(db: Db, reader: Reader, documentId: string): Promise<OriginalDocument | undefined> {
  const row = await db("documents as d")
    .leftJoin("document_files as f", (on) => on.on("f.document_id", "d.id").andOn("f.org_id", "d.org_id"))
    .where({ "d.id": documentId, "d.org_id": reader.orgId })
    .andWhereRaw("?", [readableBy(db, reader, "d")])
    .first("d.title", "d.filename", "d.mime_type", "d.full_text", "f.bytes");
  if (!row) return undefined;
  return {
    title: row.title,
    filename: row.filename,
    mimeType: row.mime_type ?? null,
    bytes: (row.bytes as Buffer | null) ?? null,
    fullText: row.full_text ?? null,
  };
}
