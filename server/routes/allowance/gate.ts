/**
 * The check before a tutor or admin turn is accepted: an organisation whose month is spent (and
 * whose credits are gone) gets 402 AI_ALLOWANCE_EXHAUSTED before anything is stored or queued.
 * Only new turns are refused: a turn already running finishes, and its tokens are charged.
 */
import type { Middleware } from "koa";
import { allowanceState } from "../../../db/queries/ai-allowance";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { allowanceExhausted } from "./present";

export function requireAllowance(deps: Pick<ServerDeps, "db" | "config">): Middleware {
  return async (ctx, next) => {
    const state = await allowanceState(deps.db, principalOf(ctx).orgId, deps.config.AI_MONTHLY_TOKENS_PER_ORG);
    if (state.exhausted) throw allowanceExhausted(state);
    await next();
  };
}
