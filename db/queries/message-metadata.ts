/**
 * `chat_messages.metadata`: what a message records beside its text — for an answer, how it was
 * grounded and made (tutor: intent, rung, sources, citations, model, tokens, latencies; admin:
 * rounds, tool calls, the action it proposed or showed), how it ended (cancelled, failed), and for
 * a question, the course context it was asked in.
 *
 * Written by one function (`insertAssistantMessageOnce`, chat-messages.ts), typed by this schema;
 * every read parses it. Rows are kept for as long as the session is, so a row written by an older
 * release, or a field of the wrong type, must never turn a history page into a 500: the schema is
 * tolerant — a field that does not fit reads as absent, a value that is not an object reads as
 * `{}`, and keys it does not name are kept as they were stored (the history API returns them).
 */
import { z } from "zod";

/** A stored source or citation: a grounding source without its text (what it points at is required; its labels default). */
const storedSource = z.object({
  index: z.number(),
  document: z.string().catch(""),
  section: z.string().nullable().catch(null),
  page: z.number().nullable().catch(null),
  sourceType: z.enum(["lesson", "document_chunk", "document", "progress", "attachment"]),
  sourceId: z.string().nullable(),
});
export type StoredSource = z.infer<typeof storedSource>;

/** One tool call of an admin answer: what it was asked and how it went (never its result). */
const storedToolCall = z.object({
  name: z.string(),
  arguments: z.unknown(),
  ok: z.boolean(),
  result_bytes: z.number(),
  truncated: z.boolean(),
  ms: z.number(),
  round: z.number(),
  error: z.string().optional(),
});

/** A field that reads as absent when it does not fit. */
const field = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const text = field(z.string());
const count = field(z.number());

/*
 * The rung and retrieval source as the socket contract names them (queues/events/contract.ts,
 * which db/ may not import): the compiler holds both lists together, since the tutor writes the
 * contract's values here and sends what it reads back in `done`.
 */
const rung = z.enum(["chunks", "document", "general"]);
const retrievalSource = z.enum(["pageindex", "semantic", "scoped_fallback", "db", "none"]);

const shape = {
  // Every answer.
  agent: field(z.literal("admin")),
  language: text,
  model: field(z.string().nullable()),
  tokens_used: count,
  // Tutor answers.
  intent: text,
  rung: field(rung),
  retrieval_source: field(retrievalSource),
  sources: field(z.array(storedSource)),
  stepped_down: field(z.object({ from: rung, reason: z.literal("sources_do_not_answer"), retrieved: z.number() })),
  truncated: field(z.boolean()),
  // A grounded answer that first cited nothing was asked for again: "cited" or "uncited" after that retry.
  cite_retry: text,
  citations: field(z.array(storedSource)),
  suggestions: field(z.array(z.string())),
  retrieval_latency_ms: count,
  generation_latency_ms: count,
  // Admin answers.
  rounds: count,
  tool_calls: field(z.array(storedToolCall)),
  action_id: field(z.string().nullable()),
  action_proposed: field(z.boolean()),
  pending_footer: text,
  action_decision: text,
  action_shown: text,
  latency_ms: count,
  // A message of its own, written when an action's run ends: which action, and how it ended.
  action_outcome: field(z.object({ action_id: z.string(), status: z.string() })),
  // How a turn ended other than answered.
  cancelled: field(z.boolean()),
  cancelled_during: text,
  error: text,
  error_code: text,
  failure_kind: text,
  swept: field(z.boolean()),
  // Questions: the course and lesson the employee asked in.
  context: field(z.object({ course_id: z.string().nullable().optional(), lesson_id: z.string().nullable().optional() })),
};

export const messageMetadata = z.looseObject(shape).catch({});
export type MessageMetadata = z.infer<typeof messageMetadata>;

/** What a writer may store: the named fields, each of its type (unknown keys are not written). */
export type StoredMetadata = { [K in keyof typeof shape]?: z.infer<(typeof shape)[K]> };

/** The stored value, read. */
export function readMetadata(value: unknown): MessageMetadata {
  return messageMetadata.parse(value);
}
