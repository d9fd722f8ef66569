/**
 * An organisation's AI allowance: a monthly token budget (its own, or AI_MONTHLY_TOKENS_PER_ORG;
 * 0 = unlimited) that resets on the 1st of each month (UTC), plus credits that never expire.
 * A model call's tokens come out of the month's allowance first, then out of the credits; what
 * neither covers (a turn that was already running when the balance ran out) is charged to the
 * month as overdraft, so the books always add up to the tokens really used.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";

type Conn = Db | Knex.Transaction;

export interface AllowanceState {
  /** The allowance that applies this month; 0 = unlimited. */
  monthlyTokens: number;
  /** Whether that is the organisation's own setting rather than the deployment default. */
  custom: boolean;
  /** Tokens charged to this month's allowance (overdraft included). */
  usedTokens: number;
  /** Tokens taken from credits this month. */
  creditTokensUsed: number;
  creditBalance: number;
  /** Allowance left this month plus credits; null when unlimited. */
  remaining: number | null;
  exhausted: boolean;
  month: string;
  resetsAt: Date;
}

/** `2026-12-01`: the calendar month (UTC) a moment belongs to. */
export function monthOf(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, "0")}-01`;
}

export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

export async function allowanceState(db: Conn, orgId: string, defaultTokens: number, at = new Date()): Promise<AllowanceState> {
  const month = monthOf(at);
  // One statement (it runs before every turn is accepted): either row may be missing.
  const { rows } = await db.raw(
    `SELECT a.monthly_tokens, a.credit_balance, m.allowance_tokens, m.credit_tokens
       FROM (SELECT 1) AS one
       LEFT JOIN ai_allowances a ON a.org_id = ?
       LEFT JOIN ai_usage_months m ON m.org_id = ? AND m.month = ?`,
    [orgId, orgId, month],
  );
  // bigint columns arrive as strings; a missing row's columns as null.
  const row = rows[0] as Record<"monthly_tokens" | "credit_balance" | "allowance_tokens" | "credit_tokens", string | null>;
  const custom = row.monthly_tokens !== null;
  const monthlyTokens = custom ? Number(row.monthly_tokens) : defaultTokens;
  const usedTokens = Number(row.allowance_tokens ?? 0);
  const creditBalance = Number(row.credit_balance ?? 0);
  const remaining = monthlyTokens === 0 ? null : Math.max(0, monthlyTokens - usedTokens) + creditBalance;
  return {
    monthlyTokens,
    custom,
    usedTokens,
    creditTokensUsed: Number(row.credit_tokens ?? 0),
    creditBalance,
    remaining,
    exhausted: remaining !== null && remaining <= 0,
    month: month.slice(0, 7),
    resetsAt: nextMonthStart(at),
  };
}

export async function organisationExists(db: Db, orgId: string): Promise<boolean> {
  return Boolean(await db("organizations").where({ id: orgId }).first("id"));
}
