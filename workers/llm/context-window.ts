/**
 * Context windows per model and fitting a conversation into one. The system prompt and the
 * current question are never cut; history goes oldest first.
 */
import { countMessageTokens, messageTokensAtMost, type CountableMessage } from "./tokens";

const CONTEXT_WINDOWS: Array<[prefix: string, tokens: number]> = [
  ["gpt-4.1", 1_000_000],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-3.5-turbo", 16_385],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["deepseek-chat", 64_000],
  ["deepseek-reasoner", 64_000],
  ["llama3.1", 128_000],
  ["llama3.2", 128_000],
  ["llama-3.3", 128_000],
  ["mistral", 32_000],
  ["qwen2.5", 32_000],
  ["offline-extractive", 16_000],
];

export const DEFAULT_CONTEXT_WINDOW = 8_192;
export const RESPONSE_RESERVE = 2_048;

/** Exact name, else the longest known prefix (`gpt-4o-2024-08-06` → `gpt-4o`), else 8,192. */
export function contextWindowOf(model: string): number {
  const name = model.toLowerCase().replace(/^.*\//, "");
  let best: [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/**
 * Keeps the system message (first, when present) and the latest message whole, then as much
 * recent history as fits in `window - reserve`. `window` is a number of tokens, or a model
 * whose window is looked up by name. Returns a new array.
 */
export function fitMessagesToContext<M extends CountableMessage>(messages: M[], window: string | number, reserve = RESPONSE_RESERVE): M[] {
  if (messages.length === 0) return [];
  const budget = (typeof window === "number" ? window : contextWindowOf(window)) - reserve;
  if (messageTokensAtMost(messages) <= budget || countMessageTokens(messages) <= budget) return [...messages];
  const system = messages[0]!.role === "system" ? messages[0]! : undefined;
  const latest = messages[messages.length - 1]!;
  const fixed = system && system !== latest ? [system, latest] : [latest];
  let remaining = budget - countMessageTokens(fixed);
  const history = messages.slice(system ? 1 : 0, -1);
  const kept: M[] = [];
  for (let i = history.length - 1; i >= 0 && remaining > 0; i--) {
    const cost = countMessageTokens([history[i]!]) - 2;
    if (cost > remaining) break;
    kept.unshift(history[i]!);
    remaining -= cost;
  }
  return system && system !== latest ? [system, ...kept, latest] : [...kept, latest];
}
