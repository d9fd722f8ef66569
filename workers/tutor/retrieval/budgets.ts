/**
 * Token budgets for the parts of a tutor prompt, from the context window the model is served
 * with (tutorContextWindow: LLM_CONTEXT_WINDOW when set, else looked up from the model's name).
 * Conservative defaults fit an 8–16K model; larger windows scale history and retrieved context
 * (up to 10×), never the system prompt. Below 8K everything shrinks, the reply's reserve
 * included, so the prompt is trimmed to fit rather than refused by the provider.
 */
import { contextWindowOf } from "../../llm/context-window";

export interface TokenBudgets {
  systemPrompt: number;
  history: number;
  retrievedContext: number;
  userMessage: number;
  generationReserve: number;
}

const BASE: TokenBudgets = { systemPrompt: 400, history: 2_000, retrievedContext: 3_000, userMessage: 200, generationReserve: 2_000 };

/** What the tutor's system prompt really costs (about 450 cl100k tokens on the grounded rungs, measured), with a margin. */
export const SYSTEM_PROMPT_TOKENS = 600;

/** The window the tutor's prompts are sized for: the configured one, else the smallest of the generation chain's models. */
export function tutorContextWindow(configured: number | undefined, models: string[]): number {
  if (configured !== undefined) return configured;
  return Math.min(...(models.length > 0 ? models : [""]).map(contextWindowOf));
}

export function budgetsFor(window: number): TokenBudgets {
  if (window <= 16_000) {
    // A quarter of a small window for the reply; 2,000 tokens from 8K up.
    const generationReserve = Math.min(BASE.generationReserve, Math.floor(window / 4));
    const rest = window - generationReserve - SYSTEM_PROMPT_TOKENS - BASE.userMessage;
    if (rest - BASE.history >= BASE.retrievedContext) {
      return { ...BASE, generationReserve, retrievedContext: Math.min(BASE.retrievedContext * 2, rest - BASE.history) };
    }
    // Too small for the defaults: history and sources share what is left, the sources the larger part.
    const history = Math.floor(rest * 0.4);
    return { ...BASE, generationReserve, history, retrievedContext: rest - history };
  }
  const scale = Math.min(10, window / 16_000);
  return {
    systemPrompt: BASE.systemPrompt,
    history: Math.floor(BASE.history * scale),
    retrievedContext: Math.floor(BASE.retrievedContext * scale),
    userMessage: BASE.userMessage,
    generationReserve: Math.floor(BASE.generationReserve * Math.min(2, scale)),
  };
}
