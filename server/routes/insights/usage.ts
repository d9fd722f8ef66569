/**
 * AI usage and estimated cost for admins: one month of the organisation's model calls by use
 * case, model, day and top users, with the allowance, credits and what is left; and the same
 * month as CSV (one line per day, use case and model) for a spreadsheet.
 */
import { allowanceState } from "../../../db/queries/ai-allowance";
import { topUsers, usageByDay, usageByModel, usageByUseCase, usageLines, usageTotals, type UsageFigures } from "../../../db/queries/usage-report";
import { principalOf } from "../../auth/middleware";
import { defineRoute } from "../define-route";
import type { ServerDeps } from "../../deps";
import { monthRange, usageQuery, usageResponse, type UsageBody } from "./schema";

const TOP_USERS = 10;
const DAY_MS = 24 * 3600 * 1000;

const present = (f: UsageFigures) => ({
  calls: f.calls,
  prompt_tokens: f.promptTokens,
  completion_tokens: f.completionTokens,
  tokens: f.promptTokens + f.completionTokens,
  cost_usd: Math.round(f.costUsd * 1e6) / 1e6,
});
const NONE: UsageFigures = { calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };

/** A CSV field: quoted when it holds a separator, and never read as a formula by a spreadsheet. */
function csvField(value: string | number): string {
  const text = String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One month's usage report of an organisation, as GET /api/v1/admin/usage answers it (and the integration usage endpoint). */
export async function usageReport(deps: ServerDeps, orgId: string, month: ReturnType<typeof monthRange>): Promise<UsageBody> {
  const [totals, byUseCase, byModel, byDay, users, allowance] = await Promise.all([
    usageTotals(deps.db, orgId, month),
    usageByUseCase(deps.db, orgId, month),
    usageByModel(deps.db, orgId, month),
    usageByDay(deps.db, orgId, month),
    topUsers(deps.db, orgId, month, TOP_USERS),
    allowanceState(deps.db, orgId, deps.config.organisations.AI_MONTHLY_TOKENS_PER_ORG, month.start),
  ]);
  const days = new Map(byDay.map((line) => [line.key, line]));
  return {
    month: month.label,
    totals: present(totals),
    by_use_case: byUseCase.map((line) => ({ use_case: line.key, ...present(line) })),
    by_model: byModel.map((line) => ({ model: line.key, ...present(line) })),
    // Every day of the month, so a chart's axis is the whole month.
    by_day: Array.from({ length: Math.round((month.end.getTime() - month.start.getTime()) / DAY_MS) }, (_, i) => {
      const day = new Date(month.start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      return { day, ...present(days.get(day) ?? NONE) };
    }),
    top_users: users.map((user) => ({ user_id: user.userId, name: user.name, email: user.email, ...present(user) })),
    allowance: {
      unlimited: allowance.monthlyTokens === 0,
      monthly_tokens: allowance.monthlyTokens,
      used_tokens: allowance.usedTokens,
      credit_tokens_used: allowance.creditTokensUsed,
      credit_balance: allowance.creditBalance,
      remaining_tokens: allowance.remaining,
      resets_at: allowance.resetsAt.toISOString(),
    },
  };
}

export const usageRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/usage",
    tag: "insights",
    summary: "AI usage and estimated cost of one month: by use case, model, day and top users, with the allowance",
    access: "admin",
    query: usageQuery,
    responses: { 200: { description: "The month's usage.", schema: usageResponse } },
    handler: async (ctx, { query }, deps) => {
      ctx.body = await usageReport(deps, principalOf(ctx).orgId, monthRange(query));
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/usage/csv",
    tag: "insights",
    summary: "The same month as CSV: one line per day, use case and model",
    access: "admin",
    query: usageQuery,
    responses: { 200: { description: "day,use_case,model,calls,prompt_tokens,completion_tokens,cost_usd", contentType: "text/csv" } },
    handler: async (ctx, { query }, deps) => {
      const month = monthRange(query);
      const lines = await usageLines(deps.db, principalOf(ctx).orgId, month);
      const header = ["day", "use_case", "model", "calls", "prompt_tokens", "completion_tokens", "cost_usd"];
      const rows = lines.map((l) => [l.day, l.useCase, l.model, l.calls, l.promptTokens, l.completionTokens, present(l).cost_usd].map(csvField).join(","));
      ctx.set("Content-Disposition", `attachment; filename="ai-usage-${month.label}.csv"`);
      ctx.type = "text/csv; charset=utf-8";
      ctx.body = `${[header.join(","), ...rows].join("\r\n")}\r\n`;
    },
  }),
];
