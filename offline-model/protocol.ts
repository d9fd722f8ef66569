/**
 * An OpenAI-compatible HTTP server on bare `node:http`. The offline model and the scripted test
 * double both run on it, so the product, the tests and a real provider all speak one protocol and
 * the app's OpenAI client is exercised end to end without network access or weights.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { handleChatCompletion, parseChatRequest } from "./chat-completions";
import { hashedEmbeddingModel } from "./hashed-embeddings";
import type { ChatReply, Responder } from "./responder";
import { HttpError, type HttpFault, errorBody, estimateTokens, sendFault, sendJson } from "./wire";

export type { HttpFault } from "./wire";

/** Every request as received, after the body was read (`body` is the raw text when it was not JSON). */
export interface LlmRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * What an interceptor may decide before normal routing: answer with a fault, or (chat only)
 * replace the responder's reply — optionally cutting the stream after N tokens, or going silent.
 */
export type Interception = { fault: HttpFault } | { reply: ChatReply; cutAfterTokens?: number; silentAfterTokens?: number };

export interface LlmServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  responder: Responder;
  /** Asked before every streamed token, so a test can change the rate while a stream runs. */
  tokenDelayMs?: () => number;
  intercept?: (request: LlmRequest) => Interception | undefined | Promise<Interception | undefined>;
  /** Used when an embeddings request names no `dimensions` (matches EMBEDDING_DIMENSIONS' default). */
  defaultEmbeddingDimensions?: number;
  /** Listed by `GET /v1/models`. */
  models?: string[];
  /** The running process's logger; requests are logged to it as `component: "llm-server"`. */
  log: Logger;
}

export interface LlmServer {
  /** Base URL ending in `/v1`, ready for `new OpenAI({ baseURL })`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const DEFAULT_MODELS = ["offline-extractive", "intfloat/multilingual-e5-small", hashedEmbeddingModel(384)];

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "Request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** OpenAI's base64 embeddings are little-endian float32; the SDK decodes them with `Float32Array`. */
function toBase64Float32(vector: number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  vector.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return Buffer.from(view.buffer).toString("base64");
}

async function handleEmbeddings(res: ServerResponse, body: unknown, responder: Responder, defaultDimensions: number): Promise<void> {
  const raw = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const input = raw.input;
  const texts =
    typeof input === "string" ? [input] : Array.isArray(input) ? input.map((item) => (typeof item === "string" ? item : JSON.stringify(item))) : undefined;
  if (!texts || texts.length === 0) throw new HttpError(400, "'input' must be a string or a non-empty array of strings", "invalid_value");
  if (typeof raw.model !== "string" || raw.model === "") throw new HttpError(400, "you must provide a model parameter", "missing_required_parameter");
  const dimensions = typeof raw.dimensions === "number" ? raw.dimensions : defaultDimensions;
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new HttpError(400, "'dimensions' must be a positive integer", "invalid_value");
  const base64 = raw.encoding_format === "base64";
  const vectors = await responder.embed(texts, dimensions, raw.model);
  const tokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  sendJson(res, 200, {
    object: "list",
    data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: base64 ? toBase64Float32(vector) : vector })),
    model: responder.embeddingModel?.(dimensions) ?? raw.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

export async function startLlmServer(options: LlmServerOptions): Promise<LlmServer> {
  const { responder, tokenDelayMs, intercept } = options;
  const defaultDimensions = options.defaultEmbeddingDimensions ?? 384;
  const models = options.models ?? DEFAULT_MODELS;
  const log = options.log.child({ component: "llm-server" });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
    const rawBody = method === "GET" || method === "HEAD" ? "" : await readBody(req);
    let body: unknown;
    let badJson = false;
    if (rawBody !== "") {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
        badJson = true;
      }
    }
    log.debug({ method, path }, "llm request");
    const interception = await intercept?.({ method, path, headers: req.headers, body });
    if (interception && "fault" in interception) return sendFault(res, interception.fault);
    if (badJson) throw new HttpError(400, "We could not parse the JSON body of your request.", "invalid_json");

    if (method === "GET" && path === "/v1/models") {
      const created = Math.floor(Date.now() / 1000);
      return sendJson(res, 200, { object: "list", data: models.map((id) => ({ id, object: "model", created, owned_by: "skillnet" })) });
    }
    if (method === "POST" && path === "/v1/chat/completions") {
      const request = parseChatRequest(body);
      const scripted = interception && "reply" in interception ? interception : undefined;
      const reply = scripted?.reply ?? (await responder.reply(request));
      return handleChatCompletion(res, request, {
        reply,
        ...(scripted?.cutAfterTokens !== undefined ? { cutAfterTokens: scripted.cutAfterTokens } : {}),
        ...(scripted?.silentAfterTokens !== undefined ? { silentAfterTokens: scripted.silentAfterTokens } : {}),
        ...(tokenDelayMs ? { tokenDelayMs } : {}),
      });
    }
    if (method === "POST" && path === "/v1/embeddings") return handleEmbeddings(res, body, responder, defaultDimensions);
    throw new HttpError(404, `Unknown request URL: ${method} ${path}.`, "unknown_url");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return sendJson(res, error.status, errorBody(error.status, error.message, error.code));
      log.warn({ err: error }, "llm server request failed");
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, errorBody(500, error instanceof Error ? error.message : String(error)));
    });
  });

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // A wildcard bind is reachable on loopback; clients cannot connect to 0.0.0.0 portably.
  const clientHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${clientHost}:${port}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets (the SDK pools them) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
