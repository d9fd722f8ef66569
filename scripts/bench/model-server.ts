/**
 * The benchmark's model: an OpenAI-compatible server in its own process (so its CPU is not the
 * pipeline's) that streams tutor answers at a fixed rate and stamps every token with the wall
 * clock at the moment it is written (` @<epoch ms>`), so a client can measure delivery lag per
 * token. Classification, summaries and embeddings get the offline model's instant answers.
 *
 * `node --import tsx scripts/bench/model-server.ts` prints `READY <base url>`;
 * `POST /bench/settings {tokens, intervalMs, firstTokenMs}` changes the answer length, the token
 * rate and how long a tutor answer waits before its first token (a real model's time to first
 * token). The first token also carries when the request arrived (` @<write>~<received>`), so a
 * client can subtract the model's own wait from what it saw.
 *
 * A hosted model makes every call wait, not only the answer: `callMs` is the wait of every other
 * chat call (before the whole reply of a non-streamed one, before the first token of a streamed
 * one), `callMsByKind` sets it per kind of call, told from the request as the offline model tells
 * them (classify, modules, summary, tools: the admin assistant's; other), and `embeddingMs` is an
 * embedding request's. `GET /bench/calls?reset=1` lists every call since the last reset: its kind,
 * when it arrived, when its reply (or first token) was written, and whether a streamed answer was
 * closed by the product before it finished (a discarded speculative answer) with the tokens it had written.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleChatCompletion } from "../../offline-model/chat-completions";
import { createOfflineResponder } from "../../offline-model/offline-responder";
import { isIntentPrompt, isModuleSelectionPrompt, isSummaryPrompt } from "../../offline-model/offline-tasks";
import type { ChatRequest } from "../../offline-model/responder";
import { messageText } from "../../offline-model/text";
import { wallClockMs } from "./stats";

/** The kinds of call the bench model tells apart by their request. */
export type CallKind = "answer" | "classify" | "modules" | "summary" | "tools" | "other" | "embedding";

interface Settings {
  /** Tokens per tutor answer. */
  tokens: number;
  /** Gap between tokens; 0 is the instant model (every token written at once). */
  intervalMs: number;
  /** Wait before a tutor answer's first token. */
  firstTokenMs: number;
  /** Wait of every other chat call: before the whole reply, or before a streamed reply's first token. */
  callMs: number;
  /** `callMs` per kind of call (an unset kind waits `callMs`). */
  callMsByKind: Partial<Record<Exclude<CallKind, "answer" | "embedding">, number>>;
  /** Wait before an embeddings reply. */
  embeddingMs: number;
}

/** One call as the model saw it (wall-clock ms). */
export interface CallRecord {
  kind: CallKind;
  received: number;
  /** When the whole reply, or a streamed reply's first token, was written. */
  answered?: number;
  /** A streamed reply the product closed before its end, and the tokens written until then. */
  aborted?: boolean;
  tokensWritten?: number;
}

const settings: Settings = { tokens: 20, intervalMs: 0, firstTokenMs: 0, callMs: 0, callMsByKind: {}, embeddingMs: 0 };
/** Every call since the last `GET /bench/calls?reset=1`, capped: a long load round does not read them. */
let calls: CallRecord[] = [];
const MAX_CALLS = 100_000;
function recordCall(kind: CallKind): CallRecord {
  const record: CallRecord = { kind, received: wallClockMs() };
  if (calls.length < MAX_CALLS) calls.push(record);
  return record;
}
const callWait = (kind: CallKind): number =>
  kind === "answer" ? settings.firstTokenMs : kind === "embedding" ? settings.embeddingMs : (settings.callMsByKind[kind] ?? settings.callMs);
const sleep = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
const offline = createOfflineResponder();
let streams = 0;
let tokensWritten = 0;
/** Tutor answers streaming now, and the most at once since the last `GET /bench/stats?reset=1`. */
let answering = 0;
let peakAnswering = 0;

// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field, as the wire format allows.
async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function callKind(request: ChatRequest): Exclude<CallKind, "embedding"> {
  const instructions = request.messages.map((message) => messageText(message)).join("\n");
  if (request.tools?.length) return "tools";
  if (isIntentPrompt(instructions)) return "classify";
  if (isModuleSelectionPrompt(instructions)) return "modules";
  if (isSummaryPrompt(instructions)) return "summary";
  return request.stream ? "answer" : "other";
}

function streamTokens(
  res: ServerResponse,
  model: string,
  includeUsage: boolean,
  count: number,
  intervalMs: number,
  firstTokenMs: number,
  call: CallRecord,
): void {
  const received = call.received;
  const id = `chatcmpl-bench${++streams}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: null, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.socket?.setNoDelay(true);
  res.write(chunk({ role: "assistant", content: "", refusal: null }));
  let sent = 0;
  let finished = false;
  // Closed by the product before the end: a speculative answer it discarded (or a cancelled turn).
  res.once("close", () => {
    if (finished) return;
    call.aborted = true;
    call.tokensWritten = sent;
  });
  const finish = () => {
    if (res.destroyed) return;
    finished = true;
    res.write(chunk({}, "stop"));
    if (includeUsage)
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: null, choices: [], usage: { prompt_tokens: 100, completion_tokens: count, total_tokens: 100 + count } })}\n\n`,
      );
    res.end("data: [DONE]\n\n");
  };
  // A paced token's chunk, built by concatenation: at 25,000 tokens/s a JSON.stringify per token
  // is a share of the model's CPU that would be taken from the pipeline on this machine.
  const [before, after] = chunk({ content: "\u0000" }).split("\\u0000");
  let start = performance.now() + firstTokenMs;
  const writeNext = (): void => {
    if (res.destroyed) return;
    // Stamped at the moment of writing, so any lag the model process itself adds is not counted.
    const stamp = ` @${wallClockMs().toFixed(2)}${sent === 0 ? `~${received.toFixed(2)}` : ""}`;
    if (sent === 0) call.answered = wallClockMs();
    res.write(`${before}${stamp}${after}`);
    tokensWritten += 1;
    sent += 1;
    if (sent >= count) {
      finish();
      return;
    }
    if (intervalMs <= 0) {
      writeNext();
      return;
    }
    // Against the stream's own schedule, so timer lateness does not stretch the rate.
    setTimeout(writeNext, Math.max(0, start + sent * intervalMs - performance.now()));
  };
  if (firstTokenMs > 0) {
    setTimeout(() => {
      start = performance.now();
      writeNext();
    }, firstTokenMs);
  } else writeNext();
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (req.method === "POST" && path === "/bench/settings") {
    Object.assign(settings, await readJson(req));
    return sendJson(res, 200, settings);
  }
  if (req.method === "GET" && path === "/bench/calls") {
    const listed = calls;
    if (req.url?.includes("reset=1")) calls = [];
    return sendJson(res, 200, listed);
  }
  if (req.method === "GET" && path === "/bench/stats") {
    const stats = { streams, tokensWritten, answering, peakAnswering };
    if (req.url?.includes("reset=1")) peakAnswering = answering;
    return sendJson(res, 200, stats);
  }
  if (req.method === "POST" && path === "/v1/embeddings") {
    const call = recordCall("embedding");
    const body = await readJson(req);
    await sleep(callWait("embedding"));
    call.answered = wallClockMs();
    const texts: string[] = typeof body.input === "string" ? [body.input] : body.input;
    const vectors = await offline.embed(texts, body.dimensions ?? 384, body.model);
    const encode = (vector: number[]) => (body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector);
    return sendJson(res, 200, {
      object: "list",
      data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: encode(vector) })),
      model: body.model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  }
  if (req.method === "POST" && path === "/v1/chat/completions") {
    const body = await readJson(req);
    const request: ChatRequest = {
      model: body.model,
      messages: body.messages,
      tools: body.tools,
      response_format: body.response_format,
      stream: body.stream === true,
    };
    const includeUsage = body.stream_options?.include_usage === true;
    const kind = callKind(request);
    const call = recordCall(kind);
    if (kind === "answer") {
      answering += 1;
      peakAnswering = Math.max(peakAnswering, answering);
      res.once("close", () => (answering -= 1));
      return streamTokens(res, body.model, includeUsage, settings.tokens, settings.intervalMs, settings.firstTokenMs, call);
    }
    await sleep(callWait(kind));
    const reply = await offline.reply(request);
    call.answered = wallClockMs();
    // The offline model's own wire format: tool calls (the admin assistant's rounds) included.
    return handleChatCompletion(res, { ...request, includeUsage }, { reply });
  }
  if (req.method === "GET" && path === "/v1/models") return sendJson(res, 200, { object: "list", data: [] });
  sendJson(res, 404, { error: { message: `unknown ${req.method} ${path}`, type: "invalid_request_error", param: null, code: null } });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (res.headersSent) res.destroy();
    else sendJson(res, 500, { error: { message: String(error), type: "server_error", param: null, code: null } });
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}/v1\n`);
});
// Never outlive the benchmark that started us.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
