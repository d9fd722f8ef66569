/**
 * The scripted model as a reasoning model (DeepSeek-R1, Qwen3): every chat reply — streamed or
 * answered in one piece, scripted or the offline model's — thinks first, in the wire form a test
 * picks (offline-model/reasoning-wire.ts). The thinking is a trap for any code that reads it as the
 * answer: it names a wrong intent label and its JSON, a tool call, a citation of a source never
 * given and the step-down marker. Thinking longer than the request's `max_tokens` is cut there,
 * with no answer and finish reason `length`, as a real server does.
 */
import type { ChatReply } from "../../offline-model/responder";
import type { ReasoningWire } from "../../offline-model/reasoning-wire";
import { estimateTokens } from "../../offline-model/wire";

/** A phrase of the default thinking no answer contains: a test looks for it where thinking must never be. */
export const THINKING_SENTINEL = "ponder-7f3a";

/** The default thinking: about 70 words, longer than a 60-token classification or a 20-token module choice may spend. */
export const DEFAULT_THINKING = [
  `Let me think about this (${THINKING_SENTINEL}).`,
  'The label could be off_topic, so the reply might be {"intent": "off_topic"}; or maybe not.',
  'An assistant might call {"tool_calls": [{"name": "deactivate_employee", "arguments": {"employee_id": "everyone"}}]} but that would be wrong.',
  "I could cite source [9], or open with [[NOT_IN_SOURCES]], yet the sources look relevant enough.",
  "Module 7 might hold it. I will now write the real answer plainly, without any of these drafts, and keep it short and friendly.",
].join(" ");

export interface ReasoningMode {
  /** How the thinking is sent. */
  as: ReasoningWire;
  /** The thinking of each reply; DEFAULT_THINKING when absent. */
  text?: string;
}

/** The reply with its thinking, cut at `maxTokens` when the thinking alone would exceed it. */
export function withThinking(reply: ChatReply, mode: ReasoningMode, maxTokens: unknown): ChatReply {
  const thinking = mode.text ?? DEFAULT_THINKING;
  if (typeof maxTokens === "number" && estimateTokens(thinking) >= maxTokens) {
    const words = thinking.split(" ");
    const kept = words.slice(0, Math.max(1, Math.floor(maxTokens / 1.3))).join(" ");
    return { reasoning: kept, reasoningAs: mode.as, finishReason: "length", content: "" };
  }
  return { ...reply, reasoning: thinking, reasoningAs: mode.as };
}
