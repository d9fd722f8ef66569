/** The model-usage ledger: one row per model call, for cost reports per org and use case. */
import type { Db } from "../knex";

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
}

export async function insertUsage(db: Db, row: UsageRow): Promise<void> {
  await db("llm_usage_log").insert({
    org_id: row.orgId,
    user_id: row.userId,
    use_case: row.useCase,
    model: row.model,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    cost_usd: row.costUsd,
    duration_ms: row.durationMs,
    streamed: row.streamed,
  });
}
