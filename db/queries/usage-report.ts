/**
 * An organisation's model usage for one calendar month (UTC), from the usage ledger: totals, by
 * use case, by model, by day and by user. Reads one org's rows in one month through the
 * (org_id, created_at) index.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";

export interface UsageFigures {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

export interface UsageLine extends UsageFigures {
  key: string;
}

export interface UserUsage extends UsageFigures {
  userId: string;
  name: string | null;
  email: string | null;
}

const FIGURES = [
  "count(*)::int as calls",
  "coalesce(sum(prompt_tokens), 0)::bigint as prompt_tokens",
  "coalesce(sum(completion_tokens), 0)::bigint as completion_tokens",
  "coalesce(sum(cost_usd), 0)::float8 as cost_usd",
].join(", ");

const figures = (row: Record<string, unknown>): UsageFigures => ({
  calls: Number(row.calls),
  promptTokens: Number(row.prompt_tokens),
  completionTokens: Number(row.completion_tokens),
  costUsd: Number(row.cost_usd),
});

function inMonth(db: Db, orgId: string, month: { start: Date; end: Date }): Knex.QueryBuilder {
  return db("llm_usage_log as l").where("l.org_id", orgId).andWhere("l.created_at", ">=", month.start).andWhere("l.created_at", "<", month.end);
}

async function grouped(db: Db, orgId: string, month: { start: Date; end: Date }, key: string): Promise<UsageLine[]> {
  const rows = await inMonth(db, orgId, month)
    .select(db.raw(`${key} as key, ${FIGURES}`))
    .groupByRaw(key)
    .orderByRaw("sum(prompt_tokens + completion_tokens) desc");
  return rows.map((row: Record<string, unknown>) => ({ key: String(row.key), ...figures(row) }));
}

export async function usageTotals(db: Db, orgId: string, month: { start: Date; end: Date }): Promise<UsageFigures> {
  const [row] = await inMonth(db, orgId, month).select(db.raw(FIGURES));
  return figures(row);
}

export const usageByUseCase = (db: Db, orgId: string, month: { start: Date; end: Date }) => grouped(db, orgId, month, "l.use_case");
export const usageByModel = (db: Db, orgId: string, month: { start: Date; end: Date }) => grouped(db, orgId, month, "l.model");
/** Days as `YYYY-MM-DD` in UTC; days without calls are absent. */
export const usageByDay = (db: Db, orgId: string, month: { start: Date; end: Date }) =>
  grouped(db, orgId, month, "to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD')");

export async function topUsers(db: Db, orgId: string, month: { start: Date; end: Date }, limit: number): Promise<UserUsage[]> {
  const rows = await inMonth(db, orgId, month)
    .join("users as u", "u.id", "l.user_id")
    .select("l.user_id", "u.name", "u.email", db.raw(FIGURES))
    .groupBy("l.user_id", "u.name", "u.email")
    .orderByRaw("sum(prompt_tokens + completion_tokens) desc")
    .limit(limit);
  return rows.map((row: Record<string, unknown>) => ({
    userId: String(row.user_id),
    name: (row.name as string) ?? null,
    email: (row.email as string) ?? null,
    ...figures(row),
  }));
}

/** One line per day, use case and model: what the CSV export holds. */
export async function usageLines(
  db: Db,
  orgId: string,
  month: { start: Date; end: Date },
): Promise<Array<UsageFigures & { day: string; useCase: string; model: string }>> {
  const day = "to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD')";
  const rows = await inMonth(db, orgId, month)
    .select(db.raw(`${day} as day, l.use_case, l.model, ${FIGURES}`))
    .groupByRaw(`${day}, l.use_case, l.model`)
    .orderByRaw(`${day}, l.use_case, l.model`);
  return rows.map((row: Record<string, unknown>) => ({ day: String(row.day), useCase: String(row.use_case), model: String(row.model), ...figures(row) }));
}
