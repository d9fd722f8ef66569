/**
 * `POST /v1/chat/completions`, streamed and not. The chunk layout mirrors OpenAI byte for byte
 * (role chunk, content/tool-call deltas, finish chunk, optional usage chunk, `[DONE]`) because the
 * SDK's stream helpers are strict and the app must be tested against what production sends.
 */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { ChatMessage, ChatReply, ChatRequest, ResponseFormat, ToolDefinition } from "./responder";
import { messageFields, textDeltas } from "./reasoning-wire";
import { messageText } from "./text";
import { HttpError, estimateTokens, sendJson, splitArguments } from "./wire";

export interface ChatOptions {
  reply: ChatReply;
  /** Test-only: stream this many tokens, then destroy the socket to simulate a dropped connection. */
  cutAfterTokens?: number;
  /** Test-only: stream this many tokens, then send nothing more while keeping the connection open. */
  silentAfterTokens?: number;
  tokenDelayMs?: () => number;
}

let completionCounter = 0;

/** Validates just enough of the body to produce a `ChatRequest`; anything else is a 400 like OpenAI's. */
export function parseChatRequest(body: unknown): ChatRequest & { includeUsage: boolean } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "Request body must be a JSON object");
  const raw = body as Record<string, unknown>;
  if (typeof raw.model !== "string" || raw.model === "") throw new HttpError(400, "you must provide a model parameter", "missing_required_parameter");
  if (!Array.isArray(raw.messages) || raw.messages.length === 0) throw new HttpError(400, "'messages' must be a non-empty array", "invalid_value");
  const tools = Array.isArray(raw.tools) ? (raw.tools as ToolDefinition[]) : undefined;
  const maxTokens = typeof raw.max_tokens === "number" ? raw.max_tokens : typeof raw.max_completion_tokens === "number" ? raw.max_completion_tokens : undefined;
  const streamOptions = raw.stream_options as { include_usage?: unknown } | undefined;
  return {
    model: raw.model,
    messages: raw.messages as ChatMessage[],
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(raw.response_format ? { response_format: raw.response_format as ResponseFormat } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(typeof raw.temperature === "number" ? { temperature: raw.temperature } : {}),
    stream: raw.stream === true,
    includeUsage: raw.stream === true && streamOptions?.include_usage === true,
  };
}

function usageFor(request: ChatRequest, reply: ChatReply) {
  const promptText = request.messages.map((message) => messageText(message)).join("\n");
  const prompt = Math.max(1, estimateTokens(promptText) + (request.tools ? estimateTokens(JSON.stringify(request.tools)) : 0));
  const completion =
    estimateTokens(`${reply.reasoning ?? ""} ${reply.content ?? ""}`) + (reply.toolCalls ? estimateTokens(JSON.stringify(reply.toolCalls)) : 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function toolCallsFor(reply: ChatReply, completionId: string) {
  return (reply.toolCalls ?? []).map((call, index) => ({
    id: `call_${completionId.slice(-8)}${index}`,
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
  }));
}

function finishReason(reply: ChatReply, hasToolCalls: boolean): string {
  return reply.finishReason ?? (hasToolCalls ? "tool_calls" : "stop");
}

export async function handleChatCompletion(res: ServerResponse, request: ChatRequest & { includeUsage: boolean }, options: ChatOptions): Promise<void> {
  completionCounter += 1;
  const id = `chatcmpl-${Date.now().toString(36)}${completionCounter.toString(36).padStart(4, "0")}`;
  const created = Math.floor(Date.now() / 1000);
  if (request.stream) return streamCompletion(res, request, options, id, created);
  if (options.cutAfterTokens !== undefined) {
    res.socket?.destroy();
    return;
  }
  const { reply } = options;
  const toolCalls = toolCallsFor(reply, id);
  const message = {
    role: "assistant",
    ...messageFields(reply, toolCalls.length > 0),
    refusal: null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  sendJson(res, 200, {
    id,
    object: "chat.completion",
    created,
    model: request.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply, toolCalls.length > 0) }],
    usage: usageFor(request, reply),
    system_fingerprint: null,
  });
}

async function streamCompletion(
  res: ServerResponse,
  request: ChatRequest & { includeUsage: boolean },
  options: ChatOptions,
  id: string,
  created: number,
): Promise<void> {
  const { reply, cutAfterTokens, silentAfterTokens, tokenDelayMs } = options;
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.socket?.setNoDelay(true);
  res.flushHeaders();

  const write = (payload: string) =>
    new Promise<boolean>((resolve) => {
      if (res.destroyed || res.writableEnded) return resolve(false);
      res.write(`data: ${payload}\n\n`, (error) => resolve(!error));
    });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    write(
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model: request.model,
        system_fingerprint: null,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...(request.includeUsage ? { usage: null } : {}),
      }),
    );

  let sent = 0;
  /** A server that hangs mid-answer: hold the connection until the client gives up on it. */
  const goSilent = () => new Promise<boolean>((resolve) => res.once("close", () => resolve(false)));
  /** Sends one token-bearing delta; false means stop (client gone, or the scripted cut happened). */
  const token = async (delta: Record<string, unknown>): Promise<boolean> => {
    const delay = tokenDelayMs?.() ?? 0;
    if (delay > 0) await sleep(delay);
    if (!(await chunk(delta))) return false;
    sent += 1;
    if (cutAfterTokens !== undefined && sent >= cutAfterTokens) {
      res.socket?.destroy();
      return false;
    }
    if (silentAfterTokens !== undefined && sent >= silentAfterTokens) return goSilent();
    return true;
  };

  const toolCalls = toolCallsFor(reply, id);
  if (!(await chunk({ role: "assistant", content: toolCalls.length > 0 && !reply.content ? null : "", refusal: null }))) return;
  if (cutAfterTokens === 0) {
    res.socket?.destroy();
    return;
  }
  if (silentAfterTokens === 0) {
    await goSilent();
    return;
  }
  for (const delta of textDeltas(reply)) {
    if (!(await token(delta))) return;
  }
  for (const [index, call] of toolCalls.entries()) {
    if (!(await token({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }))) return;
    for (const piece of splitArguments(call.function.arguments)) {
      if (!(await token({ tool_calls: [{ index, function: { arguments: piece } }] }))) return;
    }
  }
  if (!(await chunk({}, finishReason(reply, toolCalls.length > 0)))) return;
  if (request.includeUsage) {
    const usage = usageFor(request, reply);
    await write(JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, system_fingerprint: null, choices: [], usage }));
  }
  await write("[DONE]");
  res.end();
}
