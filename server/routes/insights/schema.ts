/** Query and response shapes of the admin insights (content gaps, usage). */
import { z } from "zod";

const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_GAP_WINDOW_DAYS = 30;

export const contentGapsQuery = z.object({
  since: z.iso
    .datetime({ offset: true, error: "since must be an ISO date-time, e.g. 2026-11-01T00:00:00Z" })
    .or(z.iso.date({ error: "since must be an ISO date (2026-11-01) or date-time" }))
    .optional()
    .describe(`Questions asked from then on, rounded down to the hour; default the last ${DEFAULT_GAP_WINDOW_DAYS} days.`),
});

const HOUR_MS = 3600 * 1000;

/**
 * The window's start, always on the hour (an explicit `since` rounded down to it): every request
 * naming a time of that hour shares one cached report and one job instead of each millisecond
 * naming a new one. The default is the last 30 days.
 */
export function sinceOf(query: z.infer<typeof contentGapsQuery>, now = Date.now()): Date {
  const start = query.since ? Date.parse(query.since) : now - DEFAULT_GAP_WINDOW_DAYS * DAY_MS;
  return new Date(start - (((start % HOUR_MS) + HOUR_MS) % HOUR_MS));
}

/**
 * The window's start within the organisation's chat retention: never before its first hour
 * boundary after `now - retentionDays`. Rounded up (never further back than the retention), and
 * to the hour (one cached report per hour): a question the sweep deletes at any time of that hour
 * was asked before this start, so no report read from the cache can show it.
 */
export function withinRetention(since: Date, retentionDays: number | null, now = Date.now()): Date {
  if (retentionDays === null) return since;
  const start = now - retentionDays * DAY_MS;
  const bound = start + ((HOUR_MS - (start % HOUR_MS)) % HOUR_MS);
  return new Date(Math.max(since.getTime(), bound));
}

export const usageQuery = z.object({
  month: z
    .string({ error: "month must be YYYY-MM" })
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "month must be YYYY-MM, e.g. 2026-11")
    .optional()
    .describe("Calendar month (UTC); default the current one."),
});

/** The month as a half-open UTC range. */
export function monthRange(query: z.infer<typeof usageQuery>, now = new Date()): { label: string; start: Date; end: Date } {
  const [year, month] = query.month ? query.month.split("-").map(Number) : [now.getUTCFullYear(), now.getUTCMonth() + 1];
  const start = new Date(Date.UTC(year!, month! - 1, 1));
  const end = new Date(Date.UTC(year!, month!, 1));
  return { label: start.toISOString().slice(0, 7), start, end };
}

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
