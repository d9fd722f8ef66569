/**
 * An organisation's AI allowance and credits as written, inside the transaction of
 * commands/ai-allowance.ts (which records the audit event). Nothing here opens a transaction.
 */
import type { Knex } from "knex";

/** Sets (null: clears) the organisation's own monthly allowance; returns the one before (null: the default). */
export async function upsertMonthlyAllowance(trx: Knex.Transaction, orgId: string, monthlyTokens: number | null): Promise<number | null> {
  const before = await trx("ai_allowances").where({ org_id: orgId }).first("monthly_tokens");
  await trx("ai_allowances")
    .insert({ org_id: orgId, monthly_tokens: monthlyTokens })
    .onConflict("org_id")
    .merge({ monthly_tokens: monthlyTokens, updated_at: trx.fn.now() });
  return before?.monthly_tokens === undefined || before.monthly_tokens === null ? null : Number(before.monthly_tokens);
}

/** Adds the tokens to the balance and keeps the grant; returns the new balance and the grant's id. */
export async function grantCredits(
  trx: Knex.Transaction,
  grant: { orgId: string; tokens: number; note: string; grantedBy: string },
): Promise<{ balance: number; grantId: string }> {
  const [row] = await trx("ai_allowances")
    .insert({ org_id: grant.orgId, credit_balance: grant.tokens })
    .onConflict("org_id")
    .merge({ credit_balance: trx.raw("ai_allowances.credit_balance + excluded.credit_balance"), updated_at: trx.fn.now() })
    .returning("credit_balance");
  const [inserted] = await trx("ai_credit_grants")
    .insert({ org_id: grant.orgId, tokens: grant.tokens, note: grant.note, granted_by: grant.grantedBy })
    .returning("id");
  return { balance: Number(row.credit_balance), grantId: String(inserted.id) };
}
