/**
 * Response shapes of the HTTP API, for the OpenAPI document. Strict objects, so the API test that
 * parses real responses with them fails when a route adds, drops or retypes a field.
 */
import { PAGE_LANGUAGES } from "../../lib/page-language";
import { z } from "zod";
import { DOCUMENT_STATUSES } from "../../lib/document-status";
import { ACTION_STATUSES } from "../../queues/events/contract";

const id = z.uuid();
const timestamp = z.iso.datetime({ offset: true });
const json = z.record(z.string(), z.unknown());

export const errorBody = z.object({
  error: z.looseObject({
    code: z.string().describe("Stable code; see the error table."),
    message: z.string(),
    fields: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe("VALIDATION_ERROR: each bad field."),
    retry_after: z.number().optional().describe("Seconds to wait (RATE_LIMITED, IDEMPOTENCY_IN_PROGRESS, DATABASE_TIMEOUT)."),
  }),
});

const user = z.strictObject({
  id,
  org_id: id,
  email: z.email(),
  name: z.string(),
  role: z.enum(["admin", "employee"]),
  department: z.string().nullable(),
  locale: z.string().describe("ISO 639-1 language code"),
});

export const devLoginResponse = z.strictObject({ token: z.string(), user });

export const demoUsersResponse = z.strictObject({
  users: z.array(z.strictObject({ email: z.email(), name: z.string(), role: z.enum(["admin", "employee"]), department: z.string().nullable() })),
});

export const meResponse = z.strictObject({
  user: user.extend({
    page_locale: z
      .enum(PAGE_LANGUAGES)
      .nullable()
      .describe("The language the person chose for the pages, or that their identity provider or SCIM stated; null when nobody did."),
  }),
  page_language: z
    .enum(PAGE_LANGUAGES)
    .describe("The language to draw the pages in: `user.page_locale`, else the request's Accept-Language, else English (lib/page-language.ts)."),
  organisation: z.strictObject({ name: z.string().nullable() }),
  model: z.strictObject({ name: z.string(), offline: z.boolean().describe("The bundled offline-extractive stand-in, not a real LLM.") }),
  operator: z.boolean().describe("Whether the caller may open Bull Board."),
  uploads: z
    .strictObject({ max_bytes: z.number().int(), accepted_extensions: z.array(z.string()) })
    .optional()
    .describe("Admins only."),
});

export const coursesResponse = z.strictObject({
  courses: z.array(
    z.strictObject({
      id,
      title: z.string(),
      language: z.string().describe("ISO 639-1 language code"),
      lessons: z.array(z.strictObject({ id, title: z.string(), module_title: z.string() })),
    }),
  ),
});

export const startedTurnResponse = z.strictObject({ session_id: id, turn_id: id, message_id: id });

export const cancelTurnResponse = z.strictObject({ turn_id: id, status: z.literal("cancelling") });

const session = z.strictObject({
  id,
  agent_type: z.enum(["tutor", "admin"]),
  title: z.string().nullable(),
  is_active: z.boolean(),
  context: json,
  created_at: timestamp,
  updated_at: timestamp,
});

export const sessionsResponse = z.strictObject({ sessions: z.array(session) });

export const messagesResponse = z.strictObject({
  session: z.strictObject({ id, agent_type: z.enum(["tutor", "admin"]), title: z.string().nullable(), summary: z.string().nullable() }),
  messages: z.array(
    z.strictObject({
      id,
      turn_id: id,
      role: z.enum(["user", "assistant"]),
      content: z.string(),
      status: z.enum(["complete", "failed", "cancelled"]),
      metadata: json.describe("Assistant messages: intent, rung, retrieval_source, sources, citations, suggestions, model, tokens and latencies."),
      attachments: z
        .array(
          z.strictObject({
            id,
            filename: z.string(),
            format: z.string(),
            size_bytes: z.number().int(),
            status: z.enum(["processing", "ready", "failed"]),
          }),
        )
        .describe("A question: the files sent with it (POST /api/v1/chat `attachment_ids`), in the order they were attached; empty otherwise."),
      created_at: timestamp,
    }),
  ),
  has_more: z.boolean(),
  next_before: id.nullable().describe("Pass as `before` to fetch the page before this one; null at the session's start."),
});

const documentStatus = z.enum(DOCUMENT_STATUSES);

export const documentResponse = z.strictObject({
  id,
  title: z.string(),
  filename: z.string(),
  mime_type: z.string(),
  format: z.string().nullable(),
  size_bytes: z.number().int(),
  status: documentStatus,
  error: z.string().nullable().describe("Why it FAILED, for the uploader."),
  error_code: z
    .string()
    .nullable()
    .describe("Stable code of a FAILED document (EXTRACTION_FAILED, EXTRACTION_TIMEOUT, OCR_UNAVAILABLE, CONVERTER_UNAVAILABLE, …)."),
  counts: z.strictObject({ chunks: z.number().int() }),
  access: z.strictObject({ restricted_departments: z.array(z.string()).nullable(), restricted_course_id: id.nullable() }),
  timings: z
    .object({ total_ms: z.number().nullable() })
    .catchall(z.number())
    .describe(
      "extract_ms, chunk_ms, embed_ms once measured; of them extract_wait_ms and chunk_wait_ms (waiting for an extraction thread) and store_ms (the database writes within embed_ms).",
    ),
  created_at: timestamp,
  updated_at: timestamp,
  completed_at: timestamp.nullable(),
  courses: z
    .array(z.strictObject({ id, title: z.string() }))
    .optional()
    .describe("Courses this is the source document of (single document only)."),
});

export const documentsResponse = z.strictObject({
  documents: z.array(documentResponse),
  storage: z
    .strictObject({ used_bytes: z.number().int().min(0), quota_bytes: z.number().int().min(0) })
    .describe(
      "The organisation's uploaded files against its storage quota (ORG_STORAGE_QUOTA_BYTES or its own); an upload past it answers 409 STORAGE_QUOTA_EXCEEDED.",
    ),
});

export const uploadResponse = z.strictObject({ document_id: id, status: documentStatus, duplicate: z.boolean() });

export const reindexResponse = z.strictObject({ document_id: id, status: z.literal("PENDING"), generation: z.number().int() });

const action = z.strictObject({
  id,
  tool: z.string(),
  status: z.enum(ACTION_STATUSES),
  preview: z.string(),
  args: json,
  estimate: json.nullable(),
  total: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  not_run: z.number().int().describe("Items not run because the action was stopped (0 unless `stopped`)."),
  stopped_by: id.nullable().describe("`stopped`: the admin who stopped it."),
  stopped_at: timestamp.nullable(),
  proposed_by: id,
  session_id: id.nullable(),
  turn_id: id.nullable(),
  confirmed_by: id.nullable(),
  confirmed_at: timestamp.nullable(),
  expires_at: timestamp,
  finished_at: timestamp.nullable(),
  runs: z.number().int(),
  created_at: timestamp,
});

export const actionsResponse = z.strictObject({ actions: z.array(action) });

export const actionResponse = z.strictObject({ action });

export const actionDetailResponse = z.strictObject({
  action,
  items: z.array(
    z.strictObject({
      position: z.number().int(),
      label: z.string(),
      status: z.string(),
      error: z.string().nullable(),
      target: json,
      before: z.unknown(),
      after: z.unknown(),
    }),
  ),
});

export const boardCodeResponse = z.strictObject({ code: z.string(), url: z.string(), expires_in_seconds: z.number().int() });

export const healthResponse = z.strictObject({ status: z.literal("ok") });

export const readyResponse = z.strictObject({
  status: z.enum(["ready", "not_ready"]),
  checks: z.strictObject({ redis: z.enum(["ok", "down"]), postgres: z.enum(["ok", "down"]) }),
  details: z.record(z.string(), z.string()).optional().describe("Reasons of failing checks; only with Authorization: Bearer <METRICS_TOKEN>."),
});

export const boardLoginForm = z.object({ token: z.string().describe("An operator admin's JWT.") });

export const pageLanguageResponse = z.strictObject({
  page_locale: z.enum(PAGE_LANGUAGES).nullable(),
  page_language: z.enum(PAGE_LANGUAGES),
});
