/** Shapes of the public API and socket contract as this client reads them (docs/http-api.md, docs/socket-protocol.md). */
import type { ActionPendingPayload, Citation, GroundingRung, GroundingSource } from "../../../queues/events/contract";

// The socket contract's own types (erased at build time: nothing of the server is bundled).
export type { Citation };
export type Rung = GroundingRung;
/** A source an answer was given, as far as this client reads it: whose material it is. */
export type GivenSource = Pick<GroundingSource, "sourceType">;
export type PendingAction = ActionPendingPayload;
export interface Me {
  user: {
    id: string;
    org_id: string;
    email: string;
    name: string;
    role: "admin" | "employee";
    department: string | null;
    locale: string;
    page_locale: string | null;
  };
  /** The pages' language for this person (lib/page-language.ts): their choice, what their provider stated, else Accept-Language. */
  page_language: string;
  organisation: { name: string | null };
  model: { name: string; offline: boolean };
  operator: boolean;
  uploads?: { max_bytes: number; accepted_extensions: string[] };
}

export interface SessionSummary {
  id: string;
  agent_type: "tutor" | "admin";
  title: string;
  context: { course_id?: string; lesson_id?: string } | null;
  updated_at: string;
}

export interface StoredMessage {
  id: string;
  turn_id: string;
  role: "user" | "assistant";
  content: string;
  status: string;
  metadata: {
    rung?: Rung;
    sources?: GivenSource[];
    citations?: Citation[];
    suggestions?: string[];
    tool_calls?: Array<{ name: string; arguments: unknown; ok: boolean; result_bytes?: number; ms?: number; error?: string }>;
    action_id?: string | null;
    [key: string]: unknown;
  };
  /** A question: the files sent with it. */
  attachments?: SentFile[];
  created_at: string;
}

/** A file as it went with a question. */
export interface SentFile {
  id: string;
  filename: string;
  size_bytes: number;
  status: "processing" | "ready" | "failed";
}

export interface MessagePage {
  session: { id: string; agent_type: string; title: string };
  messages: StoredMessage[];
  has_more: boolean;
  next_before: string | null;
}

export interface TurnStarted {
  session_id: string;
  turn_id: string;
  message_id: string;
}

export interface PickableCourse {
  id: string;
  title: string;
  language: string;
  lessons: Array<{ id: string; title: string; module_title: string }>;
}

export interface DocumentInfo {
  id: string;
  title: string;
  filename: string | null;
  format: string | null;
  size_bytes: number | null;
  status: string;
  error: string | null;
  error_code: string | null;
  counts: { chunks: number };
  created_at: string;
}

export interface ToolCall {
  callId: string;
  tool: string;
  arguments: unknown;
  result?: { ok: boolean; resultBytes: number; ms: number; error?: string };
}

export interface ActionItemState {
  position: number;
  label: string;
  status: string;
  error: string | null;
}

export interface TurnError {
  code: string;
  message: string;
  retryAfter?: number;
  recoveryHint?: string;
  willRetry?: boolean;
}
