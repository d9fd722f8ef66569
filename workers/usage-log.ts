/** Writes one llm_usage_log row per model call, with its estimated cost. */
import type { Db } from "../db/knex";
import { estimateCostUsd } from "./llm/costs";
import type { UsageRecord, UsageSink } from "./llm/client";

export function usageLogSink(db: Db): UsageSink {
  return async (record: UsageRecord) => {
    await db("llm_usage_log").insert({
      org_id: record.orgId,
      user_id: record.userId,
      use_case: record.useCase,
      model: record.model,
      prompt_tokens: record.promptTokens,
      completion_tokens: record.completionTokens,
      cost_usd: estimateCostUsd(record.model, record.promptTokens, record.completionTokens),
      duration_ms: record.durationMs,
      streamed: record.streamed,
    });
  };
}
