/**
 * Small pieces of the OpenAI wire format shared by every route: error bodies, JSON replies,
 * token splitting and approximate usage. Kept apart so the route handlers read as protocol logic.
 */
import type { ServerResponse } from "node:http";

/** An HTTP error answered in OpenAI's shape; used for real errors and for scripted faults alike. */
export interface HttpFault {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON verbatim; when absent an OpenAI-style `{error:{message,type,code}}` is built. */
  body?: unknown;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

const ERROR_TYPES: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: null, message: "Invalid request" },
  401: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory", message: "Forbidden" },
  404: { type: "invalid_request_error", code: "model_not_found", message: "The model does not exist or you do not have access to it" },
  413: { type: "invalid_request_error", code: "request_too_large", message: "Request body too large" },
  429: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests" },
  500: { type: "server_error", code: null, message: "The server had an error while processing your request" },
  503: { type: "server_error", code: "service_unavailable", message: "The server is overloaded" },
};

/** `{"error":{"message","type","param","code"}}` exactly as OpenAI sends it. */
export function errorBody(status: number, message?: string, code?: string | null): { error: Record<string, unknown> } {
  const known = ERROR_TYPES[status] ?? { type: status >= 500 ? "server_error" : "invalid_request_error", code: null, message: `HTTP ${status}` };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: code === undefined ? known.code : code } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendFault(res: ServerResponse, fault: HttpFault): void {
  sendJson(res, fault.status, fault.body ?? errorBody(fault.status), fault.headers);
}

/**
 * Word-ish tokens that keep their leading whitespace, like BPE tokens do:
 * `"The return "` → `["The", " return", " "]`. Joining them gives back the text exactly.
 */
export function splitTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** Usage numbers only need to be plausible: about 1.3 tokens per whitespace-separated word. */
export function estimateTokens(text: string): number {
  const count = text.match(/\S+/g)?.length ?? 0;
  return Math.ceil(count * 1.3);
}

/** Cuts a JSON argument string into a few pieces, as real models stream tool arguments. */
export function splitArguments(json: string, size = 12): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces.length > 0 ? pieces : [""];
}
