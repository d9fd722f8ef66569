/**
 * The model-usage ledger: one row per model call, for cost reports per org and use case. A row
 * with an organisation is also charged to its AI allowance, in the same transaction; `callKey`
 * names the call, so a retried write or a re-run job that makes the same call again is neither
 * logged nor charged twice.
 */
import type { Db } from "../knex";
import { monthOf } from "./ai-allowance";

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

/**
 * Writes the row and charges its tokens (the month's allowance first, then credits; see
 * ai-allowance.ts), in one round trip: the database function `record_llm_usage` (migration
 * 20261201000024) runs the whole transaction, so the org's allowance row is locked only while it
 * runs rather than across a transaction's round trips. False (nothing written, nothing charged)
 * when the call was already recorded.
 */
export async function insertUsage(db: Db, row: UsageRow, allowance: { defaultMonthlyTokens: number }): Promise<boolean> {
  const result = await db.raw("SELECT record_llm_usage(?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::date) AS recorded", [
    row.orgId,
    row.userId,
    row.useCase,
    row.model,
    row.promptTokens,
    row.completionTokens,
    row.costUsd,
    row.durationMs,
    row.streamed,
    row.callKey,
    allowance.defaultMonthlyTokens,
    monthOf(new Date()),
  ]);
  return Boolean((result.rows as Array<{ recorded: boolean }>)[0]?.recorded);
}
