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

/** Sets (or with null, clears) the organisation's own allowance; audited in the same transaction. */
export async function setMonthlyAllowance(db: Db, input: { orgId: string; monthlyTokens: number | null; actorId: string }): Promise<void> {
  await db.transaction(async (trx) => {
    const before = await trx("ai_allowances").where({ org_id: input.orgId }).first("monthly_tokens");
    await trx("ai_allowances")
      .insert({ org_id: input.orgId, monthly_tokens: input.monthlyTokens })
      .onConflict("org_id")
      .merge({ monthly_tokens: input.monthlyTokens, updated_at: trx.fn.now() });
    await trx("audit_log").insert({
      org_id: input.orgId,
      actor_id: input.actorId,
      action: "ai_allowance.set",
      target_type: "organization",
      target_id: input.orgId,
      before: JSON.stringify({ monthly_tokens: before?.monthly_tokens === undefined || before.monthly_tokens === null ? null : Number(before.monthly_tokens) }),
      after: JSON.stringify({ monthly_tokens: input.monthlyTokens }),
    });
  });
}

/** Adds credits (a grant row and an audit row, in one transaction); returns the new balance. */
export async function addCredits(db: Db, input: { orgId: string; tokens: number; note: string; actorId: string }): Promise<number> {
  return db.transaction(async (trx) => {
    const [row] = await trx("ai_allowances")
      .insert({ org_id: input.orgId, credit_balance: input.tokens })
      .onConflict("org_id")
      .merge({ credit_balance: trx.raw("ai_allowances.credit_balance + excluded.credit_balance"), updated_at: trx.fn.now() })
      .returning("credit_balance");
    const [grant] = await trx("ai_credit_grants")
      .insert({ org_id: input.orgId, tokens: input.tokens, note: input.note, granted_by: input.actorId })
      .returning("id");
    await trx("audit_log").insert({
      org_id: input.orgId,
      actor_id: input.actorId,
      action: "ai_credits.add",
      target_type: "ai_credit_grant",
      target_id: grant.id,
      details: JSON.stringify({ tokens: input.tokens, note: input.note }),
      after: JSON.stringify({ credit_balance: Number(row.credit_balance) }),
    });
    return Number(row.credit_balance);
  });
}
