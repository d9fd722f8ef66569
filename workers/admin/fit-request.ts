/**
 * Fits one admin model request into the model's context window, counting everything it sends:
 * the messages, the tool calls the model made this turn, their results and the tools' JSON
 * Schema, with room left for the reply. An 8K local model otherwise overflows after a few long
 * answers or one big tool result, and the provider refuses the whole turn.
 *
 * The system prompt, the summary and the admin's message are never cut. What goes, in order:
 * 1. this turn's tool results from earlier rounds, oldest first, replaced by a short note (the
 *    model may call the tool again), since the current round's are what it is reasoning about;
 * 2. raw history turns, oldest first (the summary still covers what came before them);
 * 3. last resort: the current round's results, each cut to an equal share of what is left.
 */
import type { ChatMessage } from "../llm/client";
import { contextWindowOf } from "../llm/context-window";
import { countTokens, tokensAtMost, truncateToTokens } from "../llm/tokens";

/** Said in place of an earlier round's result that had to make room. */
export const ELIDED_RESULT = JSON.stringify({
  elided: true,
  note: "This earlier tool result was removed to fit the model's context window. Call the tool again if you still need it.",
});

/** The smallest share of a current result worth sending: below it the note alone is sent. */
const MIN_RESULT_TOKENS = 64;

export interface FitInput {
  messages: ChatMessage[];
  /** Index of the admin's message: what precedes it is the system part and history, what follows this turn's rounds. */
  currentIndex: number;
  window: number;
  /** Tokens kept free for the reply (the request's max_tokens). */
  reserve: number;
  /** Tokens of the request's `tools` (their JSON Schema). */
  toolsTokens: number;
}

export interface FitResult {
  messages: ChatMessage[];
  /** What the request costs as sent, tools included: cl100k counts plus framing, or their byte bound when that already fits. */
  promptTokens: number;
  elidedResults: number;
  droppedTurns: number;
  cutResults: number;
}

/** The window the admin's requests are fitted to: LLM_CONTEXT_WINDOW, else the smallest window of its fallback chain. */
export function adminContextWindow(configured: number | undefined, models: string[]): number {
  if (configured !== undefined) return configured;
  return Math.min(...(models.length > 0 ? models : [""]).map(contextWindowOf));
}

function contentOf(message: ChatMessage): string {
  return typeof message.content === "string" ? message.content : message.content ? JSON.stringify(message.content) : "";
}

/**
 * Each message's count, kept for as long as the message object lives: a turn's rounds send the
 * same history and results again, and tokenising costs about 0.7 ms per KB on a busy worker (a
 * 20 KB request: 13 ms), so each message is counted once per turn. Messages are never mutated
 * here (a cut or elided one is a new object), so a cached count stays true.
 */
const counted = new WeakMap<ChatMessage, number>();

/** A message's tokens as countMessageTokens frames them, plus the tool calls an assistant message carries. */
function costOf(message: ChatMessage): number {
  const known = counted.get(message);
  if (known !== undefined) return known;
  let cost = 4 + countTokens(message.role) + countTokens(contentOf(message));
  if (message.role === "assistant" && message.tool_calls?.length) cost += countTokens(JSON.stringify(message.tool_calls));
  if (message.role === "tool") cost += countTokens(message.tool_call_id);
  counted.set(message, cost);
  return cost;
}

/** What a request costs exactly as fitting counts it: its messages (tool calls included), framing and the tools' schema. */
export function countRequestTokens(messages: ChatMessage[], toolsTokens: number): number {
  return 2 + toolsTokens + messages.reduce((sum, message) => sum + costOf(message), 0);
}

/** costOf's bound without tokenising (every cl100k token is at least one byte): most requests to a large window settle on it. */
function costAtMost(message: ChatMessage): number {
  let bound = 4 + tokensAtMost(message.role) + tokensAtMost(contentOf(message));
  if (message.role === "assistant" && message.tool_calls?.length) bound += tokensAtMost(JSON.stringify(message.tool_calls));
  if (message.role === "tool") bound += tokensAtMost(message.tool_call_id);
  return bound;
}

export function fitAdminRequest({ messages, currentIndex, window, reserve, toolsTokens }: FitInput): FitResult {
  const budget = window - reserve;
  const result = { elidedResults: 0, droppedTurns: 0, cutResults: 0 };
  const bound = 2 + toolsTokens + messages.reduce((sum, message) => sum + costAtMost(message), 0);
  if (bound <= budget) return { messages: [...messages], promptTokens: bound, ...result };
  const fitted = [...messages];
  const costs = fitted.map(costOf);
  const total = () => 2 + toolsTokens + costs.reduce((sum, cost) => sum + cost, 0);
  const done = (): FitResult => ({ messages: fitted.filter((message) => message !== DROPPED), promptTokens: total(), ...result });
  if (total() <= budget) return done();

  // This turn's results: the ones after the latest assistant tool call are the current round's.
  const toolIndexes = fitted.map((message, index) => (index > currentIndex && message.role === "tool" ? index : -1)).filter((index) => index >= 0);
  const lastCall = fitted.findLastIndex((message, index) => index > currentIndex && message.role === "assistant");
  const current = toolIndexes.filter((index) => index > lastCall);
  const earlier = toolIndexes.filter((index) => index < lastCall);

  const replace = (index: number, content: string) => {
    const message = fitted[index] as Extract<ChatMessage, { role: "tool" }>;
    fitted[index] = { ...message, content };
    costs[index] = costOf(fitted[index]!);
  };
  for (const index of earlier) {
    if (total() <= budget) return done();
    replace(index, ELIDED_RESULT);
    result.elidedResults += 1;
  }

  // History turns: whole turns, oldest first, so no answer is left without its question.
  const firstHistory = fitted.findIndex((message, index) => index < currentIndex && message.role !== "system");
  for (let index = firstHistory; index >= 0 && index < currentIndex && total() > budget; ) {
    result.droppedTurns += 1;
    do {
      fitted[index] = DROPPED;
      costs[index] = 0;
      index++;
    } while (index < currentIndex && fitted[index]!.role !== "user");
  }
  if (total() <= budget || current.length === 0) return done();

  const originals = current.map((index) => contentOf(fitted[index]!));
  const others = total() - current.reduce((sum, index) => sum + costs[index]!, 0);
  const wrap = (partial: string) =>
    JSON.stringify({
      truncated: true,
      note: "This result was cut to fit the model's context window: narrow the request (filters, limit) to see the rest, and tell the admin it is partial.",
      partial,
    });
  // Each result's share of what is left, less its wrapper; JSON escaping can make the cut text
  // dearer than counted, so the share shrinks until the request fits (a few passes at most).
  let share = Math.floor((budget - others) / current.length) - (costOf({ role: "tool", tool_call_id: "x", content: wrap("") }) + 4);
  for (let pass = 0; pass < 6; pass++) {
    current.forEach((index, i) => replace(index, wrap(share >= MIN_RESULT_TOKENS ? truncateToTokens(originals[i]!, share).text : "")));
    if (total() <= budget || share < MIN_RESULT_TOKENS) break;
    share = Math.floor(share * 0.8);
  }
  result.cutResults = current.length;
  return done();
}

/** Marks a dropped message until the copy is filtered (indexes stay put while fitting). */
const DROPPED = { role: "system", content: "" } as ChatMessage;
