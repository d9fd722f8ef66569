/**
 * Tool calling for models without it (`LLM_TOOL_CALLING=json`, or `tool_calling: "json"` on a
 * fallback provider): the tools are described in the system prompt, the model answers a JSON
 * object when it wants them, and the reply is read back into the same `ToolCall`s a native model
 * would have sent. The history is rewritten to plain user/assistant text, because servers whose
 * models lack tool calling often refuse `tool` messages and `tool_calls` fields outright.
 *
 * What the model may send, checked by a strict schema: `{"tool_calls":[{"name":…,"arguments":{…}}]}`
 * (the format we ask for), one bare `{"name":…,"arguments":{…}}` (or `parameters`, Llama 3's
 * wording), or an array of those. Anything else is an answer for the admin.
 */
import { randomBytes } from "node:crypto";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import type { LlmUseCase } from "../../lib/config";
import type { ChatMessage, ChatOptions, ToolCall } from "./client";
import { LlmError } from "./errors";
import { extractJson } from "./json-reply";
import type { ChatProvider } from "./providers";

export type ToolCallingMode = "native" | "json";

const argumentsSchema = z.record(z.string(), z.unknown()).optional();
const callSchema = z.strictObject({ name: z.string().min(1), arguments: argumentsSchema, parameters: argumentsSchema });
const listSchema = z.array(callSchema).min(1);
const wrappedSchema = z.strictObject({ tool_calls: listSchema });

/** What a reply that names a tool looks like: enough to tell a tool call gone wrong from an answer that happens to hold JSON. */
const looksLikeCall = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(looksLikeCall);
  return typeof value === "object" && value !== null && ("tool_calls" in value || ("name" in value && ("arguments" in value || "parameters" in value)));
};

export interface ParsedCall {
  name: string;
  arguments: string;
}

/**
 * Reads a complete reply: the tool calls it carries, `[]` when it is an answer, or a string
 * saying why a reply shaped like a tool call cannot be used.
 */
export function readToolReply(text: string): { calls: ParsedCall[] } | { unusable: string } {
  const value = extractJson(text);
  if (value === undefined || !looksLikeCall(value)) return { calls: [] };
  // One schema per shape, so a problem is reported where it is (`tool_calls.0.arguments`), not as "no union member matched".
  const parsed = Array.isArray(value)
    ? listSchema.safeParse(value)
    : "tool_calls" in (value as object)
      ? wrappedSchema.transform((reply) => reply.tool_calls).safeParse(value)
      : callSchema.transform((call) => [call]).safeParse(value);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    return { unusable: `the tool call does not match the format (${problem?.path.join(".") || "reply"}: ${problem?.message ?? "invalid"})` };
  }
  return {
    calls: parsed.data.map((call) => ({ name: call.name, arguments: JSON.stringify(call.arguments ?? call.parameters ?? {}) })),
  };
}

/** The instructions that stand in for the `tools` field: each tool's name, purpose and JSON Schema, and the reply format. */
export function toolInstructions(tools: ChatCompletionTool[], plainAnswerOnly: boolean): string {
  const described = tools
    .filter((tool) => tool.type === "function")
    .map((tool) => `- ${tool.function.name}: ${tool.function.description ?? ""}\n  arguments (JSON Schema): ${JSON.stringify(tool.function.parameters ?? {})}`);
  const how = plainAnswerOnly
    ? ["Do not call any tool now: answer the admin in plain text with what you already have."]
    : [
        "To call tools, reply with only this JSON object and nothing else:",
        '{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments matching its schema>}}]}',
        "Each tool's result comes back in the next message. To answer the admin, reply in plain text without JSON.",
      ];
  return ["You can use these tools:", ...described, "", ...how].join("\n");
}

/**
 * The conversation as a model without tool calling can read it: the tool instructions appended
 * to the system prompt, earlier tool calls as the JSON the model would have written, and each
 * tool result as a user message naming its call.
 */
export function asJsonToolMessages(
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionTool[],
  plainAnswerOnly: boolean,
): ChatCompletionMessageParam[] {
  const instructions = toolInstructions(tools, plainAnswerOnly);
  const names = new Map<string, string>();
  const rewritten = messages.map((message): ChatCompletionMessageParam => {
    if (message.role === "assistant" && message.tool_calls?.length) {
      const calls = message.tool_calls.filter((call) => call.type === "function");
      for (const call of calls) names.set(call.id, call.function.name);
      const json = JSON.stringify({ tool_calls: calls.map((call) => ({ name: call.function.name, arguments: parseOr(call.function.arguments) })) });
      const text = typeof message.content === "string" && message.content.trim() ? `${message.content.trim()}\n${json}` : json;
      return { role: "assistant", content: text };
    }
    if (message.role === "tool") {
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      return { role: "user", content: `Result of the tool ${names.get(message.tool_call_id) ?? "call"}:\n${content}` };
    }
    return message;
  });
  const system = rewritten.findIndex((message) => message.role === "system");
  if (system === -1) return [{ role: "system", content: instructions }, ...rewritten];
  const first = rewritten[system] as { role: "system"; content: unknown };
  const text = typeof first.content === "string" ? first.content : JSON.stringify(first.content);
  rewritten[system] = { role: "system", content: `${text}\n\n${instructions}` };
  return rewritten;
}

function parseOr(raw: string): unknown {
  try {
    return JSON.parse(raw || "{}") as unknown;
  } catch {
    return raw;
  }
}

/**
 * Streams an answer's prose while holding back what may be a tool call: from the first `{` or
 * code fence on, text waits until the reply is complete and read. A trailing backtick or two is
 * held too, since a fence can arrive split over tokens.
 */
export class ProseGate {
  private pending = "";
  private holding = false;
  /** Text already passed on. */
  shown = "";

  /** The part of `piece` that can be shown now. */
  push(piece: string): string {
    this.pending += piece;
    if (this.holding) return "";
    const starts = [this.pending.indexOf("{"), this.pending.indexOf("["), this.pending.indexOf("```")].filter((at) => at >= 0);
    let cut: number;
    if (starts.length > 0) {
      cut = Math.min(...starts);
      this.holding = true;
    } else {
      cut = this.pending.length - (/`{1,2}$/.exec(this.pending)?.[0].length ?? 0);
    }
    const out = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    this.shown += out;
    return out;
  }

  /** What was held back, to show once the reply turned out to be an answer. */
  release(): string {
    const out = this.pending;
    this.pending = "";
    this.shown += out;
    return out;
  }
}

/** What goes on the wire for a provider: the `tools` field, or (JSON tool mode) the tools described in the messages. */
export function wireRequest(
  provider: ChatProvider,
  messages: ChatMessage[],
  options: ChatOptions,
): { json: boolean; messages: ChatMessage[]; tools?: ChatCompletionTool[] } {
  if (!options.tools?.length) return { json: false, messages };
  if (provider.toolCalling === "native") return { json: false, messages, tools: options.tools };
  return { json: true, messages: asJsonToolMessages(messages, options.tools, options.toolChoice === "none") };
}

/** The prose of a complete reply before anything that may be JSON (what a stream would have shown). */
export function proseBeforeJson(text: string): string {
  const gate = new ProseGate();
  gate.push(text);
  return gate.shown;
}

/**
 * A JSON-tool-mode reply as the caller wants it: tool calls with the prose before them, or the
 * whole text as the answer. Nothing usable (no text, a malformed tool call, a tool call where an
 * answer was asked for) is LLM_CONFIG_ERROR naming the model's setting; the chain moves on.
 */
export function readJsonReply(
  text: string,
  shown: string,
  options: ChatOptions,
  provider: ChatProvider,
  model: string,
  useCase: LlmUseCase,
): { content: string; toolCalls: ToolCall[] } {
  const read = readToolReply(text);
  const unusable = (why: string) =>
    new LlmError(
      "LLM_CONFIG_ERROR",
      `The model "${model}" (${provider.label}) sent nothing usable: ${why}. Check ${provider.modelVariable(useCase)}: with JSON tool calls ` +
        "(LLM_TOOL_CALLING=json) the model must answer in plain text or with the tool-call JSON its prompt shows.",
      { recoveryHint: "An operator needs to check the model configuration.", fault: "rejected" },
    );
  if ("unusable" in read) throw unusable(read.unusable);
  if (read.calls.length === 0) {
    if (text.trim() === "") throw unusable("an empty reply");
    return { content: text, toolCalls: [] };
  }
  if (options.toolChoice === "none") {
    if (shown.trim() === "") throw unusable("a tool call where an answer was asked for");
    return { content: shown, toolCalls: [] };
  }
  return { content: shown, toolCalls: read.calls.map((call) => ({ id: `call_${randomBytes(6).toString("hex")}`, ...call })) };
}
