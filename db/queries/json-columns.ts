/**
 * The JSONB columns code reads back, other than `chat_messages.metadata` (message-metadata.ts):
 * one zod schema each, parsed where the row is read, so nothing downstream casts. Like the
 * message metadata they are tolerant — a row written by an older release, or a field of the
 * wrong type, reads as its default rather than failing the request — and keep keys they do not
 * name where the API returns the value as stored.
 *
 * Columns only written, or relayed to the API as they are without being acted on (an action's
 * `args`, an item's `target`/`before`/`after`, the audit log's `details`), have no schema here:
 * `commands/write-targets.ts` parses an item's target with its tool's own schema before applying it.
 */
import { z } from "zod";
import { MIME_TYPES, type DocumentFormat } from "../../lib/document-formats";

/** A field that reads as absent when it does not fit. */
const field = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const documentFormat = z.custom<DocumentFormat>((value) => typeof value === "string" && Object.hasOwn(MIME_TYPES, value));

/** `chat_sessions.context`: the course and lesson a tutor session is pinned to. */
export const sessionContext = z.looseObject({ course_id: field(z.string().nullable()), lesson_id: field(z.string().nullable()) }).catch({});
export type SessionContext = z.infer<typeof sessionContext>;

/** `documents.metadata`: the detected format, who named it, and the ingestion stages' timings (ms). */
export const documentMetadata = z
  .looseObject({
    format: field(documentFormat),
    title_source: field(z.enum(["admin", "filename", "document"])),
    timings: field(z.record(z.string(), z.number())),
  })
  .catch({});

/** `document_chunks.metadata` and `document_chunk_drafts.metadata`: where in its document a chunk sits. */
export const chunkMetadata = z
  .looseObject({
    heading: field(z.string().nullable()),
    page_start: field(z.number().nullable()),
    page_end: field(z.number().nullable()),
    position: field(z.number()),
  })
  .catch({});
export type ChunkMetadata = z.infer<typeof chunkMetadata>;

/** `admin_actions.estimate`: what a proposed action will take; null when none was stored. */
export const actionEstimate = z.object({ items: z.number(), writes: z.number(), seconds: z.number() }).nullable().catch(null);
export type ActionEstimate = z.infer<typeof actionEstimate>;

/** `admin_actions.summary`: how a run ended (its failed items) or why it was rejected. */
export const actionSummary = z
  .looseObject({
    failed_items: field(z.array(z.object({ position: z.number(), label: z.string(), error: z.string().nullable() }))),
    reason: field(z.string()),
    /** A stopped run: who stopped it, when, and how many items it left not run. */
    stopped: field(z.object({ by: z.string(), at: z.string(), not_run: z.number() })),
  })
  .nullable()
  .catch(null);

/** `question_vectors.embedding`: a question's vector, kept as JSON so any model's dimension fits; empty when it does not parse. */
export const storedVector = z.array(z.number()).catch([]);

/**
 * `document_files.extracted`: the extract stage's result, which the chunk stage reads
 * (workers/ingestion/extract/types.ts `ExtractedDocument`, which the compiler holds to this shape).
 */
export const storedExtraction = z.object({
  format: documentFormat,
  fullText: z.string(),
  sections: z.array(z.object({ heading: z.string().nullable(), text: z.string(), pageStart: z.number().nullable(), pageEnd: z.number().nullable() })),
  pageCount: z.number().nullable(),
  title: z.string().nullable().optional(),
});
export type StoredExtraction = z.infer<typeof storedExtraction>;
