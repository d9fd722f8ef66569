/**
 * Token budgets for the parts of a tutor prompt. Conservative defaults fit an 8–16K model;
 * larger windows scale history and retrieved context (up to 10×), never the system prompt.
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

export function budgetsFor(model: string): TokenBudgets {
  const window = contextWindowOf(model);
  if (window <= 16_000) {
    // Small windows: shrink context so the whole prompt still fits with the reserve.
    const spare = window - BASE.systemPrompt - BASE.userMessage - BASE.generationReserve - BASE.history;
    return { ...BASE, retrievedContext: Math.max(1_000, Math.min(BASE.retrievedContext * 2, spare)) };
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
