/**
 * The check before a tutor or admin turn is accepted: an organisation whose month is spent (and
 * whose credits are gone) gets 402 AI_ALLOWANCE_EXHAUSTED before anything is stored or queued.
 * Only new turns are refused: a turn already running finishes, and its tokens are charged.
 */
import type { Context, Middleware } from "koa";
import { allowanceState, type AllowanceState } from "../../../db/queries/ai-allowance";
import { principalOf } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { allowanceExhausted } from "./present";

type AllowanceDeps = Pick<ServerDeps, "db" | "config">;

/** Where `readAllowanceAhead` leaves its read on `ctx.state`. */
const READ_AHEAD = "allowanceReadAhead";

const readAllowance = (deps: AllowanceDeps, ctx: Context): Promise<AllowanceState> =>
  allowanceState(deps.db, principalOf(ctx).orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG);

/**
 * Starts the read `requireAllowance` makes further down the chain, so it runs alongside the rate
 * limit and the idempotency check instead of after them (one round trip fewer before the 202).
 * Only a read: a request refused before the check, or answered from its idempotency record,
 * drops it unawaited; the refusals and their order stay those of the chain.
 */
export function readAllowanceAhead(deps: AllowanceDeps): Middleware {
  return async (ctx, next) => {
    const read = readAllowance(deps, ctx);
    read.catch(() => undefined); // awaited by requireAllowance, or not at all
    ctx.state[READ_AHEAD] = read;
    await next();
  };
}

export function requireAllowance(deps: AllowanceDeps): Middleware {
  return async (ctx, next) => {
    const state = await ((ctx.state[READ_AHEAD] as Promise<AllowanceState> | undefined) ?? readAllowance(deps, ctx));
    if (state.exhausted) throw allowanceExhausted(state);
    await next();
  };
}
