/** Writes one llm_usage_log row per model call, with its estimated cost, charged to the org's AI allowance. */
import type { Db } from "../db/knex";
import { insertUsage } from "../db/queries/llm-usage";
import { estimateCostUsd } from "./llm/costs";
import type { UsageRecord, UsageSink } from "./llm/usage-recorder";

export function usageLogSink(db: Db, allowance: { defaultMonthlyTokens: number }): UsageSink {
  return async (record: UsageRecord) => {
    await insertUsage(db, { ...record, costUsd: estimateCostUsd(record.model, record.promptTokens, record.completionTokens) }, allowance);
  };
}
