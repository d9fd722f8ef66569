/**
 * The socket event contract (see ARCHITECTURE.md, "Events to clients"). Clients rely on
 * these names and shapes; change them only with a migration path.
 */

/** Fields every event of a turn carries; `seq` rises by one per event within the turn. */
export interface TurnEventBase {
  sessionId: string;
  turnId: string;
  seq: number;
}

export type GroundingRung = "chunks" | "document" | "general";
export type RetrievalSource = "pageindex" | "semantic" | "scoped_fallback" | "db" | "none";

export interface GroundingSource {
  index: number;
  document: string;
  section: string | null;
  page: number | null;
  sourceType: "lesson" | "document_chunk" | "document" | "progress";
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

export type ErrorCode = "RATE_LIMITED" | "LLM_UNAVAILABLE" | "LLM_CONFIG_ERROR" | "LLM_RATE_LIMITED" | "INTERNAL_ERROR";

/** Event name → payload without the common `{sessionId, turnId, seq}` fields. */
export interface TurnEventPayloads {
  stage: { stage: "classify" | "retrieve" | "generate" | "postprocess"; status: "started" | "completed" | "restart"; detail?: string };
  grounding: { rung: GroundingRung; source: RetrievalSource; sources: GroundingSource[] };
  token: { content: string };
  citations: { citations: Citation[] };
  suggestions: { suggestions: string[] };
  done: { messageId: string; tokensUsed: number; retrievalSource: RetrievalSource; retrievalLatencyMs: number; generationLatencyMs: number };
  error: { code: ErrorCode; message: string; retryAfter?: number; recoveryHint?: string; willRetry?: boolean };
}

export type TurnEventName = keyof TurnEventPayloads;
export type TurnEvent<E extends TurnEventName = TurnEventName> = TurnEventPayloads[E] & TurnEventBase;

/** What travels on the Redis channel from workers to every server node. */
export interface TurnEventEnvelope {
  room: string;
  event: TurnEventName;
  seq: number;
  data: TurnEventPayloads[TurnEventName] & { sessionId: string; turnId: string };
}

export interface JoinRequest {
  sessionId: string;
  /** Resume a turn after a reconnect: the turn and the last `seq` the client saw. */
  turnId?: string;
  lastSeq?: number;
}

export type JoinAck = { ok: true; turnId: string | null; replayed: number } | { ok: false; error: { code: string; message: string } };

export type ServerToClientEvents = {
  [E in TurnEventName]: (payload: TurnEvent<E>) => void;
} & {
  document_status: (payload: { documentId: string; status: string; progress?: { done: number; total: number }; error?: string }) => void;
};

export interface ClientToServerEvents {
  join: (request: JoinRequest, ack: (result: JoinAck) => void) => void;
  leave: (request: { sessionId: string }, ack?: (result: { ok: boolean }) => void) => void;
}

export const roomForSession = (sessionId: string): string => `session:${sessionId}`;
export const roomForUser = (userId: string): string => `user:${userId}`;
