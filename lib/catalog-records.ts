/**
 * The records an integration sends about its catalog and its people's progress: the one shape
 * of the catalog API (`/api/v1/integrations/catalog/…`) and of a bulk import's lines, so a record
 * means the same whichever way it came. Each is named by the caller's own `external_id`, or, for
 * the ones that belong to a pair (a person's enrolment in a course, level in a skill, review of an
 * exercise), by that pair; references point at the caller's ids too, so a sync can be repeated.
 *
 * A record is an upsert unless it says `"op": "delete"`; a delete carries only its key.
 */
import { z } from "zod";

/** The caller's id for a record: printable, no surrounding spaces, at most 200 characters. */
export const externalId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u, "an id of printable characters without leading or trailing spaces");

/** A person, by the id the identity system gave them (SCIM externalId) or by their email. */
export const personRef = z.union([
  z.strictObject({ external_id: externalId }),
  z.strictObject({
    email: z
      .email()
      .max(320)
      .transform((email) => email.toLowerCase()),
  }),
]);

/** ISO 639-1 (two letters, lower case): the language a course is taught in. */
export const languageCode = z.string().regex(/^[a-z]{2}$/, "a two-letter ISO 639-1 code such as en, es, fr, de or pt");

const title = z.string().trim().min(1).max(500);
const timestamp = z.iso.datetime({ offset: true });
/** A lesson's Markdown: large enough for a long lesson with tables, small enough to keep a line well under the import's limit. */
export const LESSON_CONTENT_MAX_CHARS = 1_000_000;

/** The fields of each upsert, keyed by record type (the catalog routes' bodies are these). */
export const catalogFields = {
  skill_category: z.strictObject({ name: title }),
  skill: z.strictObject({ name: title, category: externalId.nullable().optional() }),
  course: z.strictObject({
    title,
    description: z.string().max(20_000).nullable().optional(),
    language: languageCode,
    status: z.enum(["published", "draft", "archived"]).default("published"),
    /** A document pushed with this external id (documents API or `npm run sync`): the course's source material. */
    source_document: externalId.nullable().optional(),
  }),
  module: z.strictObject({
    course: externalId,
    title,
    summary: z.string().max(20_000).nullable().optional(),
    position: z.number().int().min(1).max(10_000),
  }),
  lesson: z.strictObject({
    module: externalId,
    title,
    content: z.string().max(LESSON_CONTENT_MAX_CHARS),
    position: z.number().int().min(1).max(10_000),
  }),
  exercise: z.strictObject({
    lesson: externalId,
    prompt: z.string().trim().min(1).max(20_000),
    kind: z.string().trim().min(1).max(100),
    answer: z.unknown().optional(),
  }),
  enrollment: z.strictObject({
    person: personRef,
    course: externalId,
    status: z.enum(["not_started", "in_progress", "completed"]),
    deadline: timestamp.nullable().optional(),
    score: z.number().min(0).max(1).nullable().optional(),
    started_at: timestamp.nullable().optional(),
    completed_at: timestamp.nullable().optional(),
  }),
  skill_level: z.strictObject({ person: personRef, skill: externalId, level: z.number().int().min(1).max(5) }),
  exercise_attempt: z.strictObject({
    exercise: externalId,
    person: personRef,
    score: z.number().min(0).max(1).nullable().optional(),
    passed: z.boolean(),
    attempted_at: timestamp.optional(),
  }),
  review_schedule: z.strictObject({
    person: personRef,
    exercise: externalId,
    next_review_at: timestamp,
    interval_days: z.number().int().min(1).max(3650),
    ease: z.number().min(1.3).max(5),
  }),
} as const;

export type CatalogRecordType = keyof typeof catalogFields;
export const CATALOG_RECORD_TYPES = Object.keys(catalogFields) as CatalogRecordType[];

/** Types keyed by a pair rather than an id of their own. */
const PAIR_KEYS = {
  enrollment: ["person", "course"],
  skill_level: ["person", "skill"],
  review_schedule: ["person", "exercise"],
} as const satisfies Partial<Record<CatalogRecordType, readonly string[]>>;
type PairKeyed = keyof typeof PAIR_KEYS;

export const isPairKeyed = (type: CatalogRecordType): type is PairKeyed => Object.hasOwn(PAIR_KEYS, type);

/** What names one record of a type: `{external_id}`, or its pair. */
function keyShape(type: CatalogRecordType) {
  if (!isPairKeyed(type)) return { external_id: externalId };
  const fields = catalogFields[type].shape as Record<string, z.ZodType>;
  return Object.fromEntries(PAIR_KEYS[type].map((name) => [name, fields[name]!])) as Record<string, z.ZodType>;
}

function upsertSchema<T extends CatalogRecordType>(type: T) {
  return catalogFields[type].extend({ type: z.literal(type), op: z.literal("upsert").optional(), ...keyShape(type) });
}

function deleteSchema<T extends CatalogRecordType>(type: T) {
  return z.strictObject({ type: z.literal(type), op: z.literal("delete"), ...keyShape(type) });
}

type Upsert<T extends CatalogRecordType> = z.output<(typeof catalogFields)[T]> & { type: T; op?: "upsert" } & (T extends PairKeyed
    ? unknown
    : { external_id: string });
type Delete<T extends CatalogRecordType> = { type: T; op: "delete" } & (T extends PairKeyed
  ? Pick<z.output<(typeof catalogFields)[T]>, (typeof PAIR_KEYS)[T][number] & keyof z.output<(typeof catalogFields)[T]>>
  : { external_id: string });

export type CatalogUpsert = { [T in CatalogRecordType]: Upsert<T> }[CatalogRecordType];
export type CatalogDelete = { [T in CatalogRecordType]: Delete<T> }[CatalogRecordType];
export type CatalogRecord = CatalogUpsert | CatalogDelete;

const upserts: Record<string, z.ZodType> = Object.fromEntries(CATALOG_RECORD_TYPES.map((type) => [type, upsertSchema(type)]));
const deletes: Record<string, z.ZodType> = Object.fromEntries(CATALOG_RECORD_TYPES.map((type) => [type, deleteSchema(type)]));

/** Why a record was not applied: a stable code and a sentence naming the field or reference. */
export interface RecordProblem {
  code: "INVALID_RECORD" | "UNKNOWN_TYPE" | "UNKNOWN_REFERENCE" | "CONFLICT" | "INVALID_JSON" | "RECORD_TOO_LARGE";
  message: string;
}

export type ParsedRecord = { ok: true; record: CatalogRecord } | { ok: false; problem: RecordProblem };

/**
 * Reads one record: its `type` picks the schema (an unknown type says which ones exist), `op`
 * picks upsert or delete, and a failure names each bad field, as a per-line error can show it.
 */
export function parseCatalogRecord(raw: unknown): ParsedRecord {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return invalid("a record is a JSON object with a `type`");
  const { type, op } = raw as { type?: unknown; op?: unknown };
  if (typeof type !== "string" || !Object.hasOwn(catalogFields, type)) {
    return { ok: false, problem: { code: "UNKNOWN_TYPE", message: `\`type\` must be one of ${CATALOG_RECORD_TYPES.join(", ")}` } };
  }
  const schema = (op === "delete" ? deletes : upserts)[type]!;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data as CatalogRecord };
  return invalid(
    parsed.error.issues
      .flatMap((issue) =>
        issue.code === "unrecognized_keys"
          ? issue.keys.map((key) => `${[...issue.path, key].join(".")}: unknown field`)
          : [`${issue.path.join(".") || "record"}: ${issue.message}`],
      )
      .join("; "),
  );
}

const invalid = (message: string): ParsedRecord => ({ ok: false, problem: { code: "INVALID_RECORD", message } });
