/**
 * How a reply with thinking goes on the wire, the three ways servers send a reasoning model's
 * thinking: a `reasoning_content` field (vLLM's reasoning parsers, DeepSeek's API), a `reasoning`
 * field (Ollama, OpenRouter), or a `<think>…</think>` block at the start of `content` (a server
 * with no parser). A `<think>` reply streams in chunks of a few characters, so its tags are cut
 * across chunks the way a real tokenizer cuts them.
 */
import type { ChatReply } from "./responder";
import { splitTokens } from "./wire";

export type ReasoningWire = "reasoning_content" | "reasoning" | "think";

/** Chunk lengths for a `<think>` reply, in turn: none a multiple of the other, so each tag is cut somewhere. */
const THINK_CHUNKS = [3, 5, 2, 7];

function cutIntoChunks(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0, turn = 0; at < text.length; turn++) {
    const size = THINK_CHUNKS[turn % THINK_CHUNKS.length]!;
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/** A `<think>` reply's content; one cut off while thinking never closes its block. */
function thinkContent(reply: ChatReply): string {
  const closed = reply.finishReason === "length" ? "" : `</think>\n\n${reply.content ?? ""}`;
  return `<think>\n${reply.reasoning}\n${closed}`;
}

/** The text deltas of a streamed reply, in order: the thinking (if any), then the answer. */
export function textDeltas(reply: ChatReply): Array<Record<string, string>> {
  const content = reply.content ?? "";
  if (!reply.reasoning) return splitTokens(content).map((piece) => ({ content: piece }));
  if (reply.reasoningAs === "think") return cutIntoChunks(thinkContent(reply)).map((piece) => ({ content: piece }));
  const field = reply.reasoningAs ?? "reasoning_content";
  return [...splitTokens(reply.reasoning).map((piece) => ({ [field]: piece })), ...splitTokens(content).map((piece) => ({ content: piece }))];
}

/** The message fields of a reply answered in one piece: `content` (null when absent) and the thinking's field. */
export function messageFields(reply: ChatReply, hasToolCalls: boolean): Record<string, string | null> {
  const content = reply.content ?? (hasToolCalls ? null : "");
  if (!reply.reasoning) return { content };
  if (reply.reasoningAs === "think") return { content: thinkContent(reply) };
  return { content, [reply.reasoningAs ?? "reasoning_content"]: reply.reasoning };
}
