/**
 * The reply budget of a model that thinks first. `max_tokens` counts the thinking too, so a short
 * call (a 60-token classification, a 20-token module choice) on a reasoning model ends mid-thought
 * with no answer. A model is known to reason once a reply of it carried thinking; from then on each
 * of its calls is given REASONING_ALLOWANCE_TOKENS more, and an answered-in-one-piece call that ran
 * out while still thinking is asked once more with them (chat-completion.ts). Learnt per client, so
 * a deployment needs no setting for it and a test's client starts knowing nothing.
 */
import type { ChatProvider } from "./providers";

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

  /** The `max_tokens` to send: the caller's, plus the allowance for a model known to think first. */
  replyTokens(provider: ChatProvider, model: string, maxTokens: number | undefined): number | undefined {
    if (maxTokens === undefined || !this.reasons(provider, model)) return maxTokens;
    return maxTokens + REASONING_ALLOWANCE_TOKENS;
  }

  /** Forgets every model (tests that switch the scripted model's thinking off). */
  clear(): void {
    this.known.clear();
  }
}

const keyOf = (provider: ChatProvider, model: string): string => `${provider.api.baseURL} ${model}`;
