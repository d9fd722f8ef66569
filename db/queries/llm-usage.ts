/**
 * The model-usage ledger: one row per model call, for cost reports per org and use case. A row
 * with an organisation is also charged to its AI allowance, in the same transaction; `callKey`
 * names the call, so a retried write or a re-run job that makes the same call again is neither
 * logged nor charged twice.
 */
import type { Db } from "../knex";
import { chargeTokens } from "./ai-allowance";

export interface UsageRow {
  orgId: string | null;
  userId: string | null;
  useCase: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  durationMs: number;
  streamed: boolean;
  /** Unique per model call (see workers/llm/call-keys.ts). */
  callKey: string;
}

/** Writes the row and charges its tokens; false (nothing written, nothing charged) when the call was already recorded. */
export async function insertUsage(db: Db, row: UsageRow, allowance: { defaultMonthlyTokens: number }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const inserted = await trx("llm_usage_log")
      .insert({
        org_id: row.orgId,
        user_id: row.userId,
        use_case: row.useCase,
        model: row.model,
        prompt_tokens: row.promptTokens,
        completion_tokens: row.completionTokens,
        cost_usd: row.costUsd,
        duration_ms: row.durationMs,
        streamed: row.streamed,
        call_key: row.callKey,
      })
      .onConflict("call_key")
      .ignore()
      .returning("id");
    if (inserted.length === 0) return false;
    const tokens = row.promptTokens + row.completionTokens;
    if (row.orgId && tokens > 0) {
      const charge = await chargeTokens(trx, row.orgId, tokens, allowance.defaultMonthlyTokens);
      await trx("llm_usage_log").where({ id: inserted[0].id }).update({ allowance_tokens: charge.allowanceTokens, credit_tokens: charge.creditTokens });
    }
    return true;
  });
}
