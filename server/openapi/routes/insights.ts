/** Admin insights: the content-gap report and AI usage and cost. */
import { z } from "zod";
import { contentGapsQuery, usageQuery } from "../../routes/insights/schema";
import { defineRoutes } from "../registry";

const timestamp = z.iso.datetime({ offset: true });

export const contentGapsResponse = z.strictObject({
  status: z
    .enum(["ready", "refreshing", "computing"])
    .describe(
      "`ready`: computed from the data as it is now. `refreshing`: the previous report, while a worker computes the current one. `computing`: no report yet (202); ask again after `retry_after` seconds.",
    ),
  since: timestamp,
  similarity: z.number().describe("CONTENT_GAP_SIMILARITY: the cosine at which questions are one group."),
  computed_at: timestamp.nullable().describe("When the report shown was computed; null while computing."),
  retry_after: z.number().int().nullable().describe("Seconds until asking again is worthwhile; null when ready."),
  groups: z.array(
    z.strictObject({
      id: z.uuid().describe("The group's first question; stable while the group lasts."),
      count: z.number().int().describe("Questions in the group."),
      employees: z.number().int().describe("Distinct people who asked them; the report is ranked by this."),
      examples: z.array(z.string()).describe("Up to three of its questions, newest first."),
      languages: z.array(z.string()),
      departments: z.array(z.string()),
      first_asked: timestamp,
      last_asked: timestamp,
    }),
  ),
});

const figures = {
  calls: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  tokens: z.number().int(),
  cost_usd: z.number().describe("Estimated from the model's list price (workers/llm/costs.ts); 0 for local models."),
};

export const usageResponse = z.strictObject({
  month: z.string().describe("YYYY-MM (UTC)."),
  totals: z.strictObject(figures),
  by_use_case: z.array(z.strictObject({ use_case: z.string(), ...figures })),
  by_model: z.array(z.strictObject({ model: z.string(), ...figures })),
  by_day: z.array(z.strictObject({ day: z.string().describe("YYYY-MM-DD; every day of the month."), ...figures })),
  top_users: z
    .array(z.strictObject({ user_id: z.uuid(), name: z.string().nullable(), email: z.string().nullable(), ...figures }))
    .describe("At most 10, by tokens."),
  allowance: z.strictObject({
    unlimited: z.boolean(),
    monthly_tokens: z.number().int(),
    used_tokens: z.number().int(),
    credit_tokens_used: z.number().int(),
    credit_balance: z.number().int().describe("Now, not at the end of that month."),
    remaining_tokens: z.number().int().nullable(),
    resets_at: timestamp,
  }),
});

/** What the admin console reads (imported as a type only: nothing of the server is bundled). */
export type ContentGapsBody = z.infer<typeof contentGapsResponse>;
export type UsageBody = z.infer<typeof usageResponse>;

export const insightsRoutes = defineRoutes([
  {
    method: "get",
    path: "/api/v1/admin/insights/content-gaps",
    tag: "insights",
    summary: "What employees ask that the company material does not answer, grouped by meaning",
    description:
      "Tutor questions answered on the `general` rung or rated down, asked by people still active, grouped by embedding similarity, ranked by how many employees each group affects (at most 50). A group leaves once a later question of it is answered from company material. Questions are embedded by the `question-vectors` sweep, so a new one can take half a minute to appear. The grouping runs in a worker and is cached per organisation until new questions, ratings or (de)activated people change it (or CONTENT_GAP_CACHE_TTL_SECONDS pass): the first request answers 202 `computing`, later ones the report. Limited to RATE_LIMIT_CONTENT_GAPS_PER_MINUTE per admin.",
    access: "admin",
    query: contentGapsQuery,
    rateLimited: true,
    responses: {
      200: { description: "The report (`ready`, or the previous one while `refreshing`).", schema: contentGapsResponse },
      202: { description: "Being computed: no report yet; ask again after `Retry-After` seconds.", schema: contentGapsResponse },
    },
  },
  {
    method: "get",
    path: "/api/v1/admin/usage",
    tag: "insights",
    summary: "AI usage and estimated cost of one month: by use case, model, day and top users, with the allowance",
    access: "admin",
    query: usageQuery,
    responses: { 200: { description: "The month's usage.", schema: usageResponse } },
  },
  {
    method: "get",
    path: "/api/v1/admin/usage/csv",
    tag: "insights",
    summary: "The same month as CSV: one line per day, use case and model",
    access: "admin",
    query: usageQuery,
    responses: { 200: { description: "day,use_case,model,calls,prompt_tokens,completion_tokens,cost_usd", contentType: "text/csv" } },
  },
]);
