/** Request and response shapes of the AI allowance endpoints (operator settings and the caller's own state). */
import { z } from "zod";

/** Far above any real month, still exact as a JavaScript number and a Postgres bigint. */
export const MAX_TOKENS = 1_000_000_000_000;

const tokenCount = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(0, `${what} must not be negative`)
    .max(MAX_TOKENS, `${what} must be at most ${MAX_TOKENS}`);

export const orgParams = z.object({ orgId: z.uuid({ error: "orgId must be a UUID" }) });

export const putAllowanceBody = z
  .object({
    monthly_tokens: tokenCount("monthly_tokens")
      .nullable()
      .describe("Tokens per calendar month (UTC); 0 = unlimited; null = the deployment default (AI_MONTHLY_TOKENS_PER_ORG)."),
  })
  .strict();

export const postCreditsBody = z
  .object({
    tokens: tokenCount("tokens").min(1, "tokens must be at least 1").describe("Tokens to add; credits never expire and are used after the month's allowance."),
    note: z
      .string({ error: "note is required: say why the credits were added" })
      .trim()
      .min(1, "note must not be empty")
      .max(500, "note must be at most 500 characters"),
  })
  .strict();

const timestamp = z.iso.datetime({ offset: true });

const employeeView = {
  status: z.enum(["available", "exhausted"]).describe("`exhausted`: new tutor and admin turns get 402 AI_ALLOWANCE_EXHAUSTED until `resets_at`."),
  unlimited: z.boolean(),
  resets_at: timestamp.describe("The 1st of next month, 00:00 UTC."),
};

export const adminView = z.strictObject({
  ...employeeView,
  month: z.string().describe("YYYY-MM (UTC)."),
  monthly_tokens: z.number().int().describe("The allowance that applies; 0 = unlimited."),
  custom: z.boolean().describe("Set for this organisation by an operator, rather than AI_MONTHLY_TOKENS_PER_ORG."),
  used_tokens: z.number().int().describe("Charged to this month's allowance, including what a running turn used past it."),
  credit_tokens_used: z.number().int().describe("Taken from credits this month."),
  credit_balance: z.number().int().describe("Credits left; they never expire."),
  remaining_tokens: z.number().int().nullable().describe("Allowance left this month plus credits; null when unlimited."),
});

export const allowanceResponse = z.union([adminView, z.strictObject(employeeView)]);
