/**
 * Where computed content-gap reports wait for the admin who asked. The server never groups
 * questions itself: it looks here, and when nothing current is cached it queues a
 * `content-gaps` job (commands/content-gap-report.ts) whose worker writes the report here. One
 * entry per organisation and parameters (window start, similarity, embedding model), kept for
 * CONTENT_GAP_CACHE_TTL_SECONDS and current only while the data's fingerprint
 * (db/queries/content-gaps.ts) is the one it was computed from.
 *
 * Beside the reports, one set per organisation and hour of the window starts it has had computed
 * (`content-gaps:<org>:windows:<hour>`), so a flood of distinct windows cannot queue a job each.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { redisKey } from "./keys";

export const cachedGroup = z.object({
  id: z.string(),
  count: z.number().int(),
  employees: z.number().int(),
  examples: z.array(z.string()),
  languages: z.array(z.string()),
  departments: z.array(z.string()),
  first_asked: z.string(),
  last_asked: z.string(),
});

export const cachedReport = z.object({
  fingerprint: z.string(),
  computedAt: z.string(),
  groups: z.array(cachedGroup),
});
export type CachedReport = z.infer<typeof cachedReport>;

export interface ReportParameters {
  orgId: string;
  /** ISO start of the window. */
  since: string;
  similarity: number;
  model: string;
}

/** The organisation's entry for these parameters (tagged by the organisation on a cluster). */
export function reportKey(cluster: boolean, parameters: ReportParameters): string {
  const digest = createHash("sha256").update(`${parameters.since}|${parameters.similarity}|${parameters.model}`).digest("hex").slice(0, 24);
  return redisKey("contentGapReport", cluster, { orgId: parameters.orgId, digest });
}

export async function readReport(redis: Redis, parameters: ReportParameters): Promise<CachedReport | null> {
  const raw = await redis.get(reportKey(redis.isCluster, parameters));
  if (!raw) return null;
  const parsed = cachedReport.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : null;
}

export async function writeReport(redis: Redis, parameters: ReportParameters, report: CachedReport, ttlSeconds: number): Promise<void> {
  await redis.set(reportKey(redis.isCluster, parameters), JSON.stringify(cachedReport.parse(report)), "EX", ttlSeconds);
}

/**
 * Distinct window starts an organisation may have computed per clock hour. The console asks for
 * one (the last 30 days, on the hour); an admin exploring others (a week, a quarter, since a
 * launch) needs a handful. Each report reads up to 5,000 question vectors and groups them on the
 * worker that also streams answers, so ten bounds what one organisation can ask of it per hour.
 */
export const CONTENT_GAP_WINDOWS_PER_HOUR = 10;

const HOUR_MS = 3600 * 1000;

// Admits a window already counted this hour, or a new one while the hour's set has room.
const ADMIT_WINDOW = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/**
 * Counts a report about to be computed against its organisation's distinct windows of this hour:
 * `admitted` when its window start was already counted (a refresh after new data) or there is
 * room; else the seconds until the next hour, when the count starts again.
 */
export async function admitReportWindow(
  redis: Redis,
  parameters: ReportParameters,
  now = Date.now(),
): Promise<{ admitted: true } | { admitted: false; retryAfterSeconds: number }> {
  const hour = Math.floor(now / HOUR_MS);
  const key = redisKey("contentGapWindows", redis.isCluster, { orgId: parameters.orgId, hour: String(hour) });
  const member = reportKey(false, parameters);
  const admitted = (await redis.eval(ADMIT_WINDOW, 1, key, member, CONTENT_GAP_WINDOWS_PER_HOUR, HOUR_MS)) as number;
  if (admitted === 1) return { admitted: true };
  return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(((hour + 1) * HOUR_MS - now) / 1000)) };
}
