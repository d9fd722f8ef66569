/**
 * The operator's changes to an organisation's AI allowance: its own monthly tokens
 * (`ai_allowance.updated`, before and after) and credits on top (`ai_credits.added`, kept in
 * `ai_credit_grants`), each in one transaction with its audit event.
 */
import { grantCredits, upsertMonthlyAllowance } from "../db/queries/ai-allowance-writes";
import { recordAudit } from "../db/queries/audit-log";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

type AllowanceDeps = Pick<CommandDeps, "db">;

/** Sets (or with null, clears) the organisation's own allowance. */
export async function setMonthlyAllowance(deps: AllowanceDeps, input: { orgId: string; monthlyTokens: number | null; actorId: string }): Promise<void> {
  await withTransaction(deps, async (trx) => {
    const before = await upsertMonthlyAllowance(trx, input.orgId, input.monthlyTokens);
    await recordAudit(trx, {
      name: "ai_allowance.updated",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "organization", id: input.orgId },
      before: { monthly_tokens: before },
      after: { monthly_tokens: input.monthlyTokens },
    });
  });
}

/** Adds credits; returns the new balance. */
export async function addCredits(deps: AllowanceDeps, input: { orgId: string; tokens: number; note: string; actorId: string }): Promise<number> {
  return withTransaction(deps, async (trx) => {
    const { balance, grantId } = await grantCredits(trx, { orgId: input.orgId, tokens: input.tokens, note: input.note, grantedBy: input.actorId });
    await recordAudit(trx, {
      name: "ai_credits.added",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "ai_credit_grant", id: grantId },
      details: { tokens: input.tokens, note: input.note },
      after: { credit_balance: balance },
    });
    return balance;
  });
}
