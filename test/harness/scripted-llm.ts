/**
 * A scripted OpenAI-compatible server for tests. It runs the real protocol layer (so the app's
 * OpenAI client parses real bytes) and lets each test queue replies, slow tokens down, inject
 * HTTP faults and dropped streams, and inspect every request. With nothing scripted it answers
 * like the offline model, so end-to-end tests still get sensible, grounded replies.
 */
import type { IncomingHttpHeaders } from "node:http";
import { componentLogger } from "../../lib/logger";
import { createOfflineResponder } from "../../offline-model/offline-responder";
import { hashedEmbeddingModel } from "../../offline-model/hashed-embeddings";
import { type HttpFault, type Interception, type LlmRequest, startLlmServer } from "../../offline-model/protocol";
import type { ChatReply, ChatRequest } from "../../offline-model/responder";
import { type ReasoningMode, withThinking } from "./scripted-reasoning";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON (raw text when the body was not JSON; undefined for GET). */
  body: any;
}

/** Answer the next chat completion with this HTTP status (and e.g. `retry-after`). */
export interface FaultReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Stream `cutAfterTokens` tokens of `content`, then destroy the socket (the SDK sees a dropped connection). */
export interface CutReply {
  content: string;
  cutAfterTokens: number;
}

/** Stream `silentAfterTokens` tokens of `content`, then send nothing, holding the connection open. */
export interface SilentReply {
  content: string;
  silentAfterTokens: number;
}

export type ScriptedReply = ChatReply | FaultReply | CutReply | SilentReply;

export type ScriptedResponder = (request: ChatRequest) => ChatReply | Promise<ChatReply>;

export interface ScriptedLlmOptions {
  port?: number;
  host?: string;
  tokenDelayMs?: number;
  defaultEmbeddingDimensions?: number;
}

export interface ScriptedLlm {
  /** Base URL ending in `/v1`. */
  url: string;
  port: number;
  /** Every request received, oldest first. `reset()` empties this same array. */
  readonly requests: RecordedRequest[];
  /** Clears requests, queued replies, faults, overrides and the token delay. */
  reset(): void;
  setTokenDelay(ms: number): void;
  /** One-shot replies for chat completions, consumed first-in first-out. */
  enqueueReply(...replies: ScriptedReply[]): void;
  /** Replaces the offline model as the default for chat completions; `null` restores it. */
  setResponder(fn: ScriptedResponder | null): void;
  /** Every chat reply thinks first, as a reasoning model does (scripted-reasoning.ts), until `null`. */
  setReasoning(mode: ReasoningMode | null): void;
  /** Every embeddings request answers this status until `null`. */
  failEmbeddings(status: number | null): void;
  /** Forces every returned vector to this length (to test dimension checks); `null` restores. */
  setEmbeddingDimensions(dimensions: number | null): void;
  /** Every request (chat or embeddings) naming `model` answers this status until `null`. */
  failModel(model: string, status: number | null): void;
  /** Delays every embeddings answer (to catch a worker mid-batch). */
  setEmbeddingDelay(ms: number): void;
  chatCalls(): RecordedRequest[];
  embeddingCalls(): RecordedRequest[];
  close(): Promise<void>;
}

const CHAT_PATH = "/v1/chat/completions";
const EMBEDDINGS_PATH = "/v1/embeddings";

function isFault(reply: ScriptedReply): reply is FaultReply {
  return typeof (reply as FaultReply).status === "number";
}

function faultFor(reply: FaultReply): HttpFault {
  return { status: reply.status, ...(reply.headers ? { headers: reply.headers } : {}), ...(reply.body !== undefined ? { body: reply.body } : {}) };
}

export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const offline = createOfflineResponder();
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  const modelFaults = new Map<string, number>();
  let tokenDelay = options.tokenDelayMs ?? 0;
  let override: ScriptedResponder | null = null;
  let reasoning: ReasoningMode | null = null;
  const thinking = (reply: ChatReply, body: unknown): ChatReply =>
    reasoning ? withThinking(reply, reasoning, (body as { max_tokens?: unknown } | undefined)?.max_tokens) : reply;
  let embeddingFault: number | null = null;
  let forcedDimensions: number | null = null;
  let embeddingDelay = 0;

  /** Runs synchronously per request, so concurrent requests each take their own queued reply. */
  const intercept = (request: LlmRequest): Interception | undefined => {
    requests.push({ method: request.method, path: request.path, headers: request.headers, body: request.body });
    const body = request.body as { model?: unknown } | undefined;
    const modelStatus = typeof body?.model === "string" ? modelFaults.get(body.model) : undefined;
    if (modelStatus !== undefined) return { fault: { status: modelStatus } };
    if (request.path === EMBEDDINGS_PATH && embeddingFault !== null) return { fault: { status: embeddingFault } };
    if (request.path !== CHAT_PATH || request.method !== "POST") return undefined;
    const next = queue.shift();
    if (!next) return undefined;
    if (isFault(next)) return { fault: faultFor(next) };
    if ("cutAfterTokens" in next) return { reply: thinking({ content: next.content }, body), cutAfterTokens: next.cutAfterTokens };
    if ("silentAfterTokens" in next) return { reply: thinking({ content: next.content }, body), silentAfterTokens: next.silentAfterTokens };
    return { reply: thinking(next, body) };
  };

  const server = await startLlmServer({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.defaultEmbeddingDimensions !== undefined ? { defaultEmbeddingDimensions: options.defaultEmbeddingDimensions } : {}),
    tokenDelayMs: () => tokenDelay,
    intercept,
    log: componentLogger("scripted-llm"),
    responder: {
      reply: async (request) => thinking(await (override ? override(request) : offline.reply(request)), request),
      embed: async (texts, dimensions, model) => {
        if (embeddingDelay > 0) await new Promise((resolve) => setTimeout(resolve, embeddingDelay));
        return offline.embed(texts, forcedDimensions ?? dimensions, model);
      },
      embeddingModel: (dimensions) => hashedEmbeddingModel(forcedDimensions ?? dimensions),
    },
  });

  return {
    url: server.url,
    port: server.port,
    requests,
    reset() {
      requests.length = 0;
      queue.length = 0;
      modelFaults.clear();
      tokenDelay = options.tokenDelayMs ?? 0;
      override = null;
      reasoning = null;
      embeddingFault = null;
      forcedDimensions = null;
      embeddingDelay = 0;
    },
    setEmbeddingDelay(ms) {
      embeddingDelay = ms;
    },
    setTokenDelay(ms) {
      tokenDelay = ms;
    },
    enqueueReply(...replies) {
      queue.push(...replies);
    },
    setResponder(fn) {
      override = fn;
    },
    setReasoning(mode) {
      reasoning = mode;
    },
    failEmbeddings(status) {
      embeddingFault = status;
    },
    setEmbeddingDimensions(dimensions) {
      forcedDimensions = dimensions;
    },
    failModel(model, status) {
      if (status === null) modelFaults.delete(model);
      else modelFaults.set(model, status);
    },
    chatCalls: () => requests.filter((request) => request.path === CHAT_PATH),
    embeddingCalls: () => requests.filter((request) => request.path === EMBEDDINGS_PATH),
    close: () => server.close(),
  };
}
