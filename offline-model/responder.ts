/**
 * The contract between the HTTP protocol layer and whatever decides what the "model" says.
 * Keeping the wire format out of responders lets the offline model and the test double share one
 * OpenAI-compatible server, so both exercise exactly the bytes the real SDK will parse.
 */

/** The subset of JSON Schema that tool parameters and `json_schema` response formats use. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

export interface ContentPart {
  type: string;
  text?: string;
}

export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | ContentPart[] | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
}

export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: JsonSchema };
}

export interface ResponseFormat {
  type: "text" | "json_object" | "json_schema";
  json_schema?: { name?: string; schema?: JsonSchema };
}

/** A parsed `POST /v1/chat/completions` body (`max_completion_tokens` is folded into `max_tokens`). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  response_format?: ResponseFormat;
  max_tokens?: number;
  temperature?: number;
  stream: boolean;
}

export interface ToolCallReply {
  name: string;
  /** Serialised to a JSON string by the protocol layer, as OpenAI sends it. */
  arguments: Record<string, unknown>;
}

/**
 * What the model says. `content` is whole text: the protocol layer splits it into word-ish
 * tokens for streaming, so responders never think about chunking.
 */
export interface ChatReply {
  content?: string;
  toolCalls?: ToolCallReply[];
  /** A reasoning model's thinking before the answer, sent as `reasoningAs` says (reasoning-wire.ts). */
  reasoning?: string;
  reasoningAs?: "reasoning_content" | "reasoning" | "think";
  /** `length`: the reply was cut at its token limit (the finish reason sent instead of stop/tool_calls). */
  finishReason?: "length";
}

export interface Responder {
  reply(request: ChatRequest): ChatReply | Promise<ChatReply>;
  /** One vector per text, each of length `dimensions` (unless a test double lies on purpose). */
  embed(texts: string[], dimensions: number, model: string): number[][] | Promise<number[][]>;
  /** The model name an embeddings answer reports; without it, the one the request named. */
  embeddingModel?(dimensions: number): string;
}
