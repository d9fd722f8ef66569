/**
 * One zod schema per queue: the only shape a job may carry. Payloads hold ids, never
 * secrets or large blobs; workers parse before they act and fail malformed jobs without retry.
 */
import { z } from "zod";
import type { QueueName } from "./names";
import { INTENT_LABELS } from "../lib/prompt-markers";

const uuid = z.uuid();

/** The identity of one tutor turn: its one `tutor-generate` job. */
export const tutorTurnPayload = z.object({
  orgId: uuid,
  userId: uuid,
  sessionId: uuid,
  turnId: uuid,
  messageId: uuid,
  courseId: uuid.nullable(),
  lessonId: uuid.nullable(),
});
export type TutorTurnPayload = z.infer<typeof tutorTurnPayload>;

export const summarisePayload = z.object({
  orgId: uuid,
  sessionId: uuid,
  /** The turn that triggered the refresh, for logs only. */
  turnId: uuid,
});
export type SummarisePayload = z.infer<typeof summarisePayload>;

/** One ingestion run of one document; `generation` ties the job to a (re)index request. */
export const ingestPayload = z.object({
  orgId: uuid,
  documentId: uuid,
  /** Whose `user:<id>` room hears about progress. */
  userId: uuid,
  generation: z.number().int().min(0),
});
export type IngestPayload = z.infer<typeof ingestPayload>;

/** One admin assistant turn: the confirmation check, then the tool-calling rounds. */
export const adminTurnPayload = z.object({
  orgId: uuid,
  userId: uuid,
  sessionId: uuid,
  turnId: uuid,
  messageId: uuid,
});
export type AdminTurnPayload = z.infer<typeof adminTurnPayload>;

/** One run of a confirmed admin action (the first, or a resume); `run` keeps job ids distinct. */
export const adminActionPayload = z.object({
  orgId: uuid,
  actionId: uuid,
  /** Whose `user:<id>` room hears progress: the admin who proposed the action. */
  userId: uuid,
  run: z.number().int().min(1),
});
export type AdminActionPayload = z.infer<typeof adminActionPayload>;

/** The periodic sweeps the `maintenance` queue runs; each has its own job scheduler. */
export const MAINTENANCE_TASKS = ["lost-turns", "stuck-documents", "question-vectors", "vector-indexes", "chat-retention", "catalog-imports"] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

export const maintenancePayload = z.object({ task: z.enum(MAINTENANCE_TASKS) });

/** One content-gap report to compute and cache: the parameters name its cache entry. */
export const contentGapsPayload = z.object({
  orgId: uuid,
  since: z.iso.datetime({ offset: true }),
  similarity: z.number().min(0).max(1),
  model: z.string().min(1),
  /** The data's fingerprint when the report was asked for; the cached report carries it. */
  fingerprint: z.string(),
});

/** One run of an organisation's deletion: its record (`org_deletions`) holds the step and the counts. */
export const orgDeletePayload = z.object({
  orgId: uuid,
  deletionId: uuid,
  run: z.number().int().min(1),
});
export type OrgDeletePayload = z.infer<typeof orgDeletePayload>;

/** One bulk catalog import: its record (`catalog_imports`) holds the file, the cursor and the counts. */
export const catalogImportPayload = z.object({
  orgId: uuid,
  importId: uuid,
});
export type CatalogImportPayload = z.infer<typeof catalogImportPayload>;
/**
 * One job about one person's data: building an export, or one run of an erasure. Only the record's
 * id: the record (person_exports, person_erasures) names the person, so a job in Bull Board, its
 * events and its failures never carry whom it is about.
 */
export const personDataPayload = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("export"), orgId: uuid, exportId: uuid }),
  z.object({ kind: z.literal("erase"), orgId: uuid, erasureId: uuid, run: z.number().int().min(1) }),
]);
export type PersonDataPayload = z.infer<typeof personDataPayload>;

/** One file attached to a tutor conversation, read once; `userId` is whose room hears its state. */
export const chatAttachmentPayload = z.object({
  orgId: uuid,
  userId: uuid,
  sessionId: uuid,
  attachmentId: uuid,
});
export type ChatAttachmentPayload = z.infer<typeof chatAttachmentPayload>;

export const payloadSchemas = {
  "tutor-generate": tutorTurnPayload,
  "chat-summarise": summarisePayload,
  "admin-plan": adminTurnPayload,
  "admin-actions": adminActionPayload,
  "ingest-extract": ingestPayload,
  "ingest-chunk": ingestPayload,
  "ingest-embed": ingestPayload,
  maintenance: maintenancePayload,
  "content-gaps": contentGapsPayload,
  "org-delete": orgDeletePayload,
  "catalog-import": catalogImportPayload,
  "person-data": personDataPayload,
  "chat-attachment": chatAttachmentPayload,
} satisfies Record<QueueName, z.ZodType>;

export type PayloadOf<Q extends QueueName> = z.infer<(typeof payloadSchemas)[Q]>;

/** The intent labels a tutor turn can have (classify decides, retrieval acts on it); the intent prompt asks for them by these names (lib/prompt-markers.ts). */
export const INTENTS = INTENT_LABELS;
export type Intent = (typeof INTENTS)[number];

/**
 * Checks a job's data against its queue's schema, typed for that queue (zod cannot narrow a
 * schema picked by a generic key, hence the one cast here).
 */
export function parsePayload<Q extends QueueName>(queue: Q, data: unknown): z.ZodSafeParseResult<PayloadOf<Q>> {
  return payloadSchemas[queue].safeParse(data) as z.ZodSafeParseResult<PayloadOf<Q>>;
}
