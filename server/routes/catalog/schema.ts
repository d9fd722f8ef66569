/** The catalog API's requests and answers (docs/integrations.md, "Catalog and progress"). */
import { z } from "zod";
import { externalId } from "../../../lib/catalog-records";

/** The path of each type that has an id of its own: PUT and DELETE `/api/v1/integrations/catalog/<path>/{external_id}`. */
export const CATALOG_PATHS = {
  skill_category: "skill-categories",
  skill: "skills",
  course: "courses",
  module: "modules",
  lesson: "lessons",
  exercise: "exercises",
  exercise_attempt: "exercise-attempts",
} as const;

export const externalIdParams = z.strictObject({ external_id: externalId });

const applyResult = z.enum(["created", "updated", "unchanged", "deleted"]);
const counts = z.object({ created: z.number(), updated: z.number(), unchanged: z.number(), deleted: z.number(), failed: z.number() });

export const appliedRecordResponse = z.object({
  type: z.string(),
  external_id: z.string(),
  result: applyResult.describe("`unchanged`: the record was already so (or, for a delete, not there); nothing was written."),
});

/** The records endpoint takes up to this many records (a bulk import takes more). */
const RECORDS_PER_REQUEST = 1000;
/** …in a body of up to this many bytes. */
export const RECORDS_BODY_MAX_BYTES = 8 * 1024 * 1024;
/** A single record's body (PUT): a lesson of a million characters, in UTF-8, fits. */
export const RECORD_BODY_MAX_BYTES = 4 * 1024 * 1024;

export const recordsBody = z.strictObject({
  records: z
    .array(z.unknown())
    .min(1)
    .max(RECORDS_PER_REQUEST)
    .describe('Catalog records (each with its `type`, and `op: "delete"` for a delete), applied in this order, each whole or refused.'),
});

export const recordsResponse = z.object({
  results: z.array(
    z.object({
      index: z.number().describe("The record's place in `records`, from 0."),
      result: applyResult.optional(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    }),
  ),
  counts,
});

export const catalogImportBody = z.object({
  id: z.uuid(),
  status: z.enum(["receiving", "received", "applying", "completed", "failed"]).describe("`receiving`: the body is still being read."),
  format: z.enum(["ndjson", "json"]),
  byte_size: z.number(),
  total: z.number().nullable().describe("Records in the file, once the job has split it."),
  done: z.number(),
  counts,
  changed: z.boolean().describe("False when the import changed nothing (a re-run of the same file)."),
  error: z
    .string()
    .nullable()
    .describe("Why a `failed` import stopped (the file is not JSON, or the job kept failing), in a sentence that never holds SQL or internal text."),
  error_code: z.string().nullable().describe("The same as a code: `IMPORT_UNREADABLE` (the file could not be read as records) or `IMPORT_FAILED`."),
  problems_omitted: z
    .object({ total: z.number(), by_code: z.record(z.string(), z.number()) })
    .describe('Refused records past the first 1,000 kept with their line and reason, counted per code ("and N more").'),
  key_name: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type CatalogImportBody = z.infer<typeof catalogImportBody>;

export const catalogImportResponse = z.object({ import: catalogImportBody });
export const catalogImportsResponse = z.object({ imports: z.array(catalogImportBody) });

export const catalogImportDetailResponse = z.object({
  import: catalogImportBody,
  problems: z.array(z.object({ line: z.number(), code: z.string(), message: z.string() })),
  next_after_line: z.number().nullable().describe("Pass as `after_line` for the next page of problems; null on the last."),
});

export const importParams = z.strictObject({ id: z.uuid() });

export const importProblemsQuery = z.strictObject({
  after_line: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const importsQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });
