/** Query shapes of the admin insights (content gaps, usage). */
import { z } from "zod";

const DAY_MS = 24 * 3600 * 1000;
export const DEFAULT_GAP_WINDOW_DAYS = 30;

export const contentGapsQuery = z.object({
  since: z.iso
    .datetime({ offset: true, error: "since must be an ISO date-time, e.g. 2026-11-01T00:00:00Z" })
    .or(z.iso.date({ error: "since must be an ISO date (2026-11-01) or date-time" }))
    .optional()
    .describe(`Questions asked from then on; default the last ${DEFAULT_GAP_WINDOW_DAYS} days.`),
});

const HOUR_MS = 3600 * 1000;

/**
 * The window's start. The default (the last 30 days) starts on the hour, so every request of
 * that hour shares one cached report instead of each millisecond naming a new one.
 */
export function sinceOf(query: z.infer<typeof contentGapsQuery>, now = Date.now()): Date {
  if (query.since) return new Date(query.since);
  const start = now - DEFAULT_GAP_WINDOW_DAYS * DAY_MS;
  return new Date(start - (start % HOUR_MS));
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
