/** The AI allowance: the caller's view of it, and the operator's per-organisation settings. */
import { z } from "zod";
import { orgParams, postCreditsBody, putAllowanceBody } from "../../routes/allowance/schema";
import { defineRoutes } from "../registry";

const timestamp = z.iso.datetime({ offset: true });

const employeeView = {
  status: z.enum(["available", "exhausted"]).describe("`exhausted`: new tutor and admin turns get 402 AI_ALLOWANCE_EXHAUSTED until `resets_at`."),
  unlimited: z.boolean(),
  resets_at: timestamp.describe("The 1st of next month, 00:00 UTC."),
};

const adminView = z.strictObject({
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

export const allowanceRoutes = defineRoutes([
  {
    method: "get",
    path: "/api/v1/ai-allowance",
    tag: "ai allowance",
    summary: "The caller's organisation's AI allowance this month",
    description: "Employees get whether the assistant is paused and until when; admins also get the figures.",
    access: "bearer",
    responses: { 200: { description: "The allowance.", schema: allowanceResponse } },
  },
  {
    method: "put",
    path: "/api/v1/ops/orgs/:orgId/ai-allowance",
    tag: "ops",
    summary: "Set an organisation's own monthly token allowance (audited)",
    access: "operator",
    params: orgParams,
    body: putAllowanceBody,
    responses: { 200: { description: "The organisation's allowance after the change.", schema: adminView } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "post",
    path: "/api/v1/ops/orgs/:orgId/ai-credits",
    tag: "ops",
    summary: "Add credits to an organisation (audited)",
    access: "operator",
    params: orgParams,
    body: postCreditsBody,
    responses: { 201: { description: "The organisation's allowance after the top-up.", schema: adminView } },
    errors: ["NOT_FOUND"],
  },
]);
