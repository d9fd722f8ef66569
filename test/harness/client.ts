/** A small HTTP + socket.io client speaking to the real server like a browser would: used by the tests and the eval harness. */
import { io, type Socket } from "socket.io-client";
import type { JoinAck, TurnEventName } from "../../queues/events/contract";

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function api<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers["content-type"] ??= "application/json";
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: "manual" });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // leave as text (HTML pages, empty bodies)
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export async function login(baseUrl: string, email: string): Promise<{ token: string; user: { id: string; org_id: string; role: string } }> {
  const response = await api(baseUrl, "POST", "/api/v1/auth/dev-login", { body: { email } });
  if (response.status !== 200) throw new Error(`dev-login failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function connect(baseUrl: string, token: string | undefined): Promise<Socket> {
  const socket = io(baseUrl, { path: "/socket.io", auth: token ? { token } : {}, transports: ["websocket"], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (error) => reject(error));
  });
  return socket;
}

export interface ReceivedEvent {
  event: TurnEventName;
  payload: any;
}

/** Records every turn event a socket receives, in arrival order. */
export function recordEvents(socket: Socket): ReceivedEvent[] {
  const received: ReceivedEvent[] = [];
  socket.onAny((event: TurnEventName, payload: unknown) => received.push({ event, payload }));
  return received;
}

export function join(socket: Socket, request: { sessionId: string; turnId?: string; lastSeq?: number }): Promise<JoinAck> {
  return socket.timeout(10_000).emitWithAck("join", request) as Promise<JoinAck>;
}

/** Resolves once the recorded events include `done` (or a final `error`) for the turn. */
export async function waitForTurnEnd(received: ReceivedEvent[], turnId: string, timeoutMs = 20_000): Promise<ReceivedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const events = received.filter((e) => e.payload?.turnId === turnId);
    if (events.some((e) => e.event === "done" || (e.event === "error" && !e.payload.willRetry))) return events;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`turn ${turnId} did not finish within ${timeoutMs} ms; got ${received.map((e) => e.event).join(",")}`);
}

export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 15_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Uploads one file as multipart/form-data, like a browser form would. */
export async function upload(
  baseUrl: string,
  token: string,
  file: { name: string; bytes: Buffer; type?: string },
  fields: Record<string, string> = {},
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "application/octet-stream" }), file.name);
  const response = await fetch(`${baseUrl}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // keep text
  }
  return { status: response.status, body, headers: response.headers };
}
