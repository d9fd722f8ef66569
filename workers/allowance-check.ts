/**
 * The AI allowance as background work reads it. A turn is checked when it is accepted (and an
 * admin turn before each model call); work nobody waits for — session summaries, the question
 * embeddings of the content-gap report — asks here before calling the model for an
 * organisation, and an organisation whose allowance and credits are spent gets no call: its work
 * waits for the next month or a top-up, while other organisations' goes on.
 */
import { allowanceState, type AllowanceState } from "../db/queries/ai-allowance";
import type { WorkerDeps } from "./deps";

/** The organisation's allowance when it is spent (no model call may be made for it), else null. */
export async function spentAllowance(deps: Pick<WorkerDeps, "db" | "config">, orgId: string): Promise<AllowanceState | null> {
  const state = await allowanceState(deps.db, orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG);
  return state.exhausted ? state : null;
}
