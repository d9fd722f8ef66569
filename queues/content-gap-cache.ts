/**
 * Where computed content-gap reports wait for the admin who asked. The server never groups
 * questions itself: it looks here, and when nothing current is cached it queues a
 * `content-gaps` job (commands/content-gap-report.ts) whose worker writes the report here. One
 * entry per organisation and parameters (window start, similarity, embedding model), kept for
 * CONTENT_GAP_CACHE_TTL_SECONDS and current only while the data's fingerprint
 * (db/queries/content-gaps.ts) is the one it was computed from.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { ownedKey } from "./slots";

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
  return ownedKey(cluster, parameters.orgId, `content-gaps:${parameters.orgId}:${digest}`);
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
