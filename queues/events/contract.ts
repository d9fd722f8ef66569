/**
 * The socket event contract. Clients rely on these names and shapes; change them only with a
 * migration path. docs/socket-protocol.md explains it to client authors, and
 * docs/architecture.md ("The event stream") how events travel from a worker to a socket.
 */

/** Fields every event of a turn carries; `seq` rises by one per event within the turn. */
export interface TurnEventBase {
  sessionId: string;
  turnId: string;
  seq: number;
}

export type GroundingRung = "chunks" | "document" | "general";
export const RETRIEVAL_SOURCES = ["pageindex", "semantic", "scoped_fallback", "db", "none"] as const;
export type RetrievalSource = (typeof RETRIEVAL_SOURCES)[number];

/**
 * The admin assistant's tools, by name (workers/admin/tools defines each with one of these). A
 * `tool_call`/`tool_result` event carries the name the model sent, which may be made up; metrics
 * label a call only with a name of this list, so model output cannot mint label values.
 */
export const ADMIN_TOOL_NAMES = [
  "list_employees",
  "get_employee_detail",
  "get_skills_matrix",
  "get_skill_gaps",
  "who_knows",
  "list_courses",
  "get_course_stats",
  "get_alerts",
  "get_mentorship_suggestions",
  "assign_course",
  "verify_skill",
  "deactivate_employee",
  "archive_course",
] as const;
export type AdminToolName = (typeof ADMIN_TOOL_NAMES)[number];

/** How a run of an admin action ends (`action_done`); `stopped`: an admin stopped it, its undone items were not run. */
export const ACTION_END_STATUSES = ["completed", "partial", "failed", "stopped"] as const;

/** Every status an admin action can be in (the API's filters and responses; the database checks the same list). */
export const ACTION_STATUSES = ["pending", "confirmed", "running", "rejected", "expired", ...ACTION_END_STATUSES] as const;

export interface GroundingSource {
  index: number;
  document: string;
  section: string | null;
  page: number | null;
  /** `attachment`: a passage of a file the employee attached to this conversation (`document` is its file name). */
  sourceType: "lesson" | "document_chunk" | "document" | "progress" | "attachment";
  sourceId: string | null;
}

export interface Citation {
  index: number;
  document: string;
  section: string | null;
  page: number | null;
  sourceType: GroundingSource["sourceType"];
  sourceId: string | null;
}

/** `TURN_LOST`: the turn's work vanished (its jobs were lost or its workers died too often); send the message again. */
/** `DATABASE_TIMEOUT`: Postgres cancelled a statement of the turn (DATABASE_STATEMENT_TIMEOUT_MS) on every attempt. */
/** `AI_ALLOWANCE_EXHAUSTED`: the organisation's allowance ran out while the turn ran; it stopped before its next model call. */
/** `ACCOUNT_INACTIVE`: the sender was deactivated before the turn ran; `FORBIDDEN`: an admin turn's sender is no longer an admin. No model call was made. */
export type ErrorCode =
  | "RATE_LIMITED"
  | "LLM_UNAVAILABLE"
  | "LLM_CONFIG_ERROR"
  | "LLM_RATE_LIMITED"
  | "INTERNAL_ERROR"
  | "TURN_LOST"
  | "DATABASE_TIMEOUT"
  | "AI_ALLOWANCE_EXHAUSTED"
  | "ACCOUNT_INACTIVE"
  | "FORBIDDEN";

/** Event name → payload without the common `{sessionId, turnId, seq}` fields. */
export interface TurnEventPayloads {
  stage: { stage: "classify" | "retrieve" | "generate" | "postprocess" | "plan"; status: "started" | "completed" | "restart"; detail?: string };
  grounding: { rung: GroundingRung; source: RetrievalSource; sources: GroundingSource[] };
  /**
   * The model said the sources it was given do not answer the question (the step-down marker,
   * workers/tutor/step-down.ts): the turn is general knowledge after all. Sent at most once,
   * after `grounding` and before the answer's first token; it replaces that announcement, the
   * answer keeps no citation markers and `citations` is empty. `from` is the rung announced first.
   */
  grounding_update: { rung: "general"; source: "none"; sources: GroundingSource[]; from: GroundingRung; reason: "sources_do_not_answer" };
  token: { content: string };
  /**
   * A reasoning model's thinking, as it streams, apart from the answer's `token`s: shown to the
   * person (collapsed), never stored with the answer. Only models that think send it.
   */
  reasoning: { content: string };
  citations: { citations: Citation[] };
  suggestions: { suggestions: string[] };
  /** Tutor turns carry the retrieval figures; admin turns the tool-call count and any action proposed. */
  done: {
    messageId: string;
    tokensUsed: number;
    retrievalSource?: RetrievalSource;
    retrievalLatencyMs?: number;
    generationLatencyMs?: number;
    toolCalls?: number;
    actionId?: string | null;
    /** The owner cancelled the turn: the stored answer is the partial text shown so far (maybe empty). */
    cancelled?: boolean;
  };
  /** Admin turns: the model asked for a tool (arguments as it sent them, parsed when they were JSON). */
  tool_call: { callId: string; tool: string; arguments: unknown; round: number };
  /** Admin turns: what the tool gave back, in size and time (the rows themselves go to the model only). */
  tool_result: { callId: string; tool: string; ok: boolean; resultBytes: number; ms: number; error?: string; truncated?: boolean; actionId?: string };
  /** Admin turns: a write was planned and frozen; nothing changes until the admin confirms. */
  action_pending: ActionPendingPayload;
  error: { code: ErrorCode; message: string; retryAfter?: number; recoveryHint?: string; willRetry?: boolean };
}

export interface ActionPendingPayload {
  actionId: string;
  tool: string;
  preview: string;
  total: number;
  /** The first items as the admin will see them; GET /api/v1/admin/actions/:id lists all. */
  items: Array<{ position: number; label: string }>;
  estimate: { items: number; writes: number; seconds: number };
  expiresAt: string;
}

export type TurnEventName = keyof TurnEventPayloads;
export type TurnEvent<E extends TurnEventName = TurnEventName> = TurnEventPayloads[E] & TurnEventBase;

/** What travels on the Redis channel from workers to every server node. */
export interface TurnEventEnvelope {
  room: string;
  event: TurnEventName | ActionEventName;
  seq: number;
  /** A turn's first `token` in a traced turn: the worker's `traceparent`, so the server's delivery span joins the turn's trace. */
  trace?: string;
  data: (TurnEventPayloads[TurnEventName] & { sessionId: string; turnId: string }) | (ActionEventPayloads[ActionEventName] & { actionId: string });
}

/** Events of one admin action, sent to its proposer's `user:<id>` room with their own `seq`. */
export interface ActionEventPayloads {
  /** `pending` again means a confirmation was undone because its job could not be queued. */
  action_status: { status: "pending" | "confirmed" | "rejected" | "expired" | "running"; by?: string };
  action_progress: { done: number; failed: number; total: number };
  action_done: {
    status: (typeof ACTION_END_STATUSES)[number];
    done: number;
    failed: number;
    total: number;
    /** Items that never ran: those a stop left undone (0 for any other ending). */
    notRun: number;
    /** `stopped`: the admin who stopped it. */
    stoppedBy?: string;
    failedItems: Array<{ position: number; label: string; error: string | null }>;
  };
}
export type ActionEventName = keyof ActionEventPayloads;
export type ActionEvent<E extends ActionEventName = ActionEventName> = ActionEventPayloads[E] & { actionId: string; seq: number };

export interface JoinRequest {
  sessionId: string;
  /** Resume a turn after a reconnect: the turn and the last `seq` the client saw. */
  turnId?: string;
  lastSeq?: number;
}

/** Where an export (`GET …/exports/:id`) or an erasure (`GET …/erasure`) stands; the ids are the records', never the person's. */
export interface PersonDataEvent {
  kind: "export" | "erasure";
  id: string;
  status: "running" | "completed" | "failed";
  /** The erasure's step (workers/person-data/erase.ts), or `build` for an export. */
  step?: string;
}

/** `retryAfter` (seconds) comes with `RATE_LIMITED`. */
export type JoinAck = { ok: true; turnId: string | null; replayed: number } | { ok: false; error: { code: string; message: string; retryAfter?: number } };

export type ServerToClientEvents = {
  [E in TurnEventName]: (payload: TurnEvent<E>) => void;
} & {
  [E in ActionEventName]: (payload: ActionEvent<E>) => void;
} & {
  document_status: (payload: { documentId: string; status: string; progress?: { done: number; total: number }; error?: string }) => void;
  /** To an organisation's admins while one of its bulk catalog imports runs (and when it ends). */
  catalog_import: (payload: CatalogImportEvent) => void;
  /** A data export's or an erasure's progress, in the room of whoever asked for it (never naming the person). */
  person_data: (payload: PersonDataEvent) => void;
  /** A file attached to one of the user's tutor conversations was read (`ready`) or could not be (`failed`, code ATTACHMENT_FAILED). */
  attachment_status: (payload: AttachmentStatusEvent) => void;
  /** Sent just before the server disconnects a socket whose token expired or whose account is gone. */
  auth_expired: (payload: AuthExpired) => void;
  /** Sent just before the server disconnects a socket that kept sending events past its limit. */
  rate_limited: (payload: RateLimitedEvent) => void;
};

/** Where a bulk catalog import stands: `done` of `total` records (null until the file is split). */
export interface CatalogImportEvent {
  importId: string;
  status: "receiving" | "received" | "applying" | "completed" | "failed";
  total: number | null;
  done: number;
  counts: { created: number; updated: number; unchanged: number; deleted: number; failed: number };
}

/**
 * Where a file attached to a tutor conversation stands. `failed` carries `code: "ATTACHMENT_FAILED"`,
 * the reading's own code in `reason_code` (EXTRACTION_TIMEOUT, OCR_UNAVAILABLE, …) and a sentence
 * for the person in `reason`; the attachment keeps the same state (GET …/attachments).
 */
export interface AttachmentStatusEvent {
  attachmentId: string;
  sessionId: string;
  status: "ready" | "failed";
  code?: "ATTACHMENT_FAILED";
  reason?: string;
  reason_code?: string;
}

/** Why a socket was cut for flooding; reconnect (and send less). */
export interface RateLimitedEvent {
  code: "EVENT_FLOOD";
  message: string;
}

/** Why a connected socket lost its authorisation; sign in again (a new token) to reconnect. */
export interface AuthExpired {
  code: "TOKEN_EXPIRED" | "ACCOUNT_INACTIVE" | "SIGNED_OUT";
  message: string;
}

export interface ClientToServerEvents {
  join: (request: JoinRequest, ack: (result: JoinAck) => void) => void;
  leave: (request: { sessionId: string }, ack?: (result: { ok: boolean }) => void) => void;
  /** Admins: replay an action's events after `lastSeq` (live ones reach the user room anyway). */
  watch_action: (
    request: { actionId: string; lastSeq?: number },
    ack: (result: { ok: true; replayed: number } | { ok: false; error: { code: string; message: string } }) => void,
  ) => void;
  /** Cancel one of your own turns (same rules as POST /api/v1/chat/turns/:id/cancel); `done` says how it ended. */
  cancel: (request: { turnId: string }, ack?: (result: CancelAck) => void) => void;
}

/** `TURN_ALREADY_FINISHED` when the turn had already ended; `NOT_FOUND` when it is not yours. */
export type CancelAck = { ok: true; turnId: string } | { ok: false; error: { code: string; message: string } };

export const roomForSession = (sessionId: string): string => `session:${sessionId}`;
export const roomForUser = (userId: string): string => `user:${userId}`;
/** The sockets opened with one browser sign-in's tokens (its refresh family). */
export const roomForSignIn = (signInId: string): string => `sign-in:${signInId}`;
