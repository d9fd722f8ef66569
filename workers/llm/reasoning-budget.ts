/**
 * The reply budget of a model that thinks first. `max_tokens` counts the thinking too, so a short
 * call (a 60-token classification, a 20-token module choice) on a reasoning model ends mid-thought
 * with no answer. A model is known to reason once a reply of it carried thinking; from then on each
 * of its calls is given REASONING_ALLOWANCE_TOKENS more, and an answered-in-one-piece call that ran
 * out while still thinking is asked once more with them (chat-completion.ts). Learnt per client, so
 * a deployment needs no setting for it and a test's client starts knowing nothing. The allowance
 * never takes a request past the model's context window (LLM_CONTEXT_WINDOW, else the one its name
 * suggests): vLLM refuses a request whose prompt and `max_tokens` together exceed it.
 */
import type { Config } from "../../lib/config";
import { contextWindowOf } from "./context-window";
import type { ChatProvider } from "./providers";
import { type CountableMessage, countMessageTokens, messageTokensAtMost } from "./tokens";

/** What a reasoning model may spend thinking on top of a call's own budget: enough for DeepSeek-R1 and Qwen3 on short tasks. */
export const REASONING_ALLOWANCE_TOKENS = 2_048;

/** Far more than any deployment's chain of models: a bound, not a tuning. */
const MAX_REMEMBERED = 256;

export class ReasoningModels {
  private readonly known = new Set<string>();

  /** A reply of this model carried thinking. */
  note(provider: ChatProvider, model: string): void {
    if (this.known.size >= MAX_REMEMBERED) return;
    this.known.add(keyOf(provider, model));
  }

  reasons(provider: ChatProvider, model: string): boolean {
    return this.known.has(keyOf(provider, model));
  }

  /** The `max_tokens` to send: the caller's, plus the allowance (as much as the window leaves) for a model known to think first. */
  replyTokens(
    config: Pick<Config, "llm">,
    provider: ChatProvider,
    model: string,
    maxTokens: number | undefined,
    prompt: CountableMessage[],
  ): number | undefined {
    if (maxTokens === undefined || !this.reasons(provider, model)) return maxTokens;
    return maxTokens + roomToThink(config.llm.LLM_CONTEXT_WINDOW ?? contextWindowOf(model), maxTokens, prompt);
  }

  /** Forgets every model (tests that switch the scripted model's thinking off). */
  clear(): void {
    this.known.clear();
  }
}

const keyOf = (provider: ChatProvider, model: string): string => `${provider.api.baseURL} ${model}`;

/** The allowance, or what the window leaves beside the prompt and the caller's budget (the prompt counted exactly only when that matters). */
function roomToThink(window: number, maxTokens: number, prompt: CountableMessage[]): number {
  const free = window - maxTokens;
  if (messageTokensAtMost(prompt) + REASONING_ALLOWANCE_TOKENS <= free) return REASONING_ALLOWANCE_TOKENS;
  return Math.max(0, Math.min(REASONING_ALLOWANCE_TOKENS, free - countMessageTokens(prompt)));
}
