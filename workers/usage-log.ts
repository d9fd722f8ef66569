/** Writes one llm_usage_log row per model call, with its estimated cost. */
import type { Db } from "../db/knex";
import { insertUsage } from "../db/queries/llm-usage";
import { estimateCostUsd } from "./llm/costs";
import type { UsageRecord, UsageSink } from "./llm/client";

export function usageLogSink(db: Db): UsageSink {
  return (record: UsageRecord) => insertUsage(db, { ...record, costUsd: estimateCostUsd(record.model, record.promptTokens, record.completionTokens) });
}
