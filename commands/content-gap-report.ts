/**
 * Asking for a content-gap report. Grouping thousands of question vectors is CPU work that must
 * never run on a server's event loop, so this only looks: a cached report computed from the
 * data as it is now is `ready`; otherwise a `content-gaps` job is queued (one per organisation,
 * parameters and data fingerprint however many admins ask — BullMQ deduplication) and the caller
 * gets the previous report marked `refreshing`, or `computing` when there is none yet. A job for a
 * window start the organisation has not had computed this hour counts against
 * CONTENT_GAP_WINDOWS_PER_HOUR: past it, 429 CONTENT_GAP_REPORTS_EXHAUSTED until the next hour.
 */
import { contentGapFingerprint } from "../db/queries/content-gaps";
import { admitReportWindow, type CachedReport, CONTENT_GAP_WINDOWS_PER_HOUR, readReport, reportKey, type ReportParameters } from "../queues/content-gap-cache";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";

/** How long the same report (window and fingerprint) is queued once, however its job ended. */
const REPORT_DEDUPLICATION_MS = 60_000;

export type ReportState = { status: "ready"; report: CachedReport } | { status: "refreshing"; report: CachedReport } | { status: "computing" };

export async function requestContentGapReport(deps: CommandDeps, parameters: ReportParameters): Promise<ReportState> {
  const [fingerprint, cached] = await Promise.all([contentGapFingerprint(deps.db, parameters.orgId, parameters.model), readReport(deps.redis, parameters)]);
  if (cached?.fingerprint === fingerprint) return { status: "ready", report: cached };
  const window = await admitReportWindow(deps.redis, parameters);
  if (!window.admitted) {
    throw new Refusal(
      "rate_limited",
      "CONTENT_GAP_REPORTS_EXHAUSTED",
      `Your organisation has had ${CONTENT_GAP_WINDOWS_PER_HOUR} content-gap reports of different start dates computed this hour, the most it may; ` +
        `ask again for one of those, or for this one in ${window.retryAfterSeconds} s.`,
      { retry_after: window.retryAfterSeconds },
    );
  }
  const id = `${reportKey(false, parameters)}:${fingerprint}`;
  // Deduplicated for a minute, not only while the job runs: a request that read no report just
  // before the job wrote it and completed would otherwise queue the same computation again. A new
  // question, rating or deactivation changes the fingerprint, so the id, and is never held back.
  await deps.producer.enqueue("content-gaps", { ...parameters, fingerprint }, { deduplication: { id, ttl: REPORT_DEDUPLICATION_MS } });
  return cached ? { status: "refreshing", report: cached } : { status: "computing" };
}
