/** The allowance as the API shows it, and the 402 a turn gets once it is spent. */
import type { AllowanceState } from "../../../db/queries/ai-allowance";
import { allowanceExhaustedRefusal, type Refusal } from "../../../lib/refusal";

/** Everyone sees whether the tutor is available and until when it is paused; admins also see the figures. */
export function presentAllowance(state: AllowanceState, role: "admin" | "employee") {
  const common = {
    status: state.exhausted ? ("exhausted" as const) : ("available" as const),
    unlimited: state.monthlyTokens === 0,
    resets_at: state.resetsAt.toISOString(),
  };
  if (role !== "admin") return common;
  return {
    ...common,
    month: state.month,
    monthly_tokens: state.monthlyTokens,
    custom: state.custom,
    used_tokens: state.usedTokens,
    credit_tokens_used: state.creditTokensUsed,
    credit_balance: state.creditBalance,
    remaining_tokens: state.remaining,
  };
}

export function allowanceExhausted(state: AllowanceState): Refusal {
  return allowanceExhaustedRefusal(state.resetsAt, "accept");
}
