/**
 * Asking for a content-gap report. Grouping thousands of question vectors is CPU work that must
 * never run on a server's event loop, so this only looks: a cached report computed from the
 * data as it is now is `ready`; otherwise a `content-gaps` job is queued (one per organisation,
 * parameters and data fingerprint however many admins ask — BullMQ deduplication) and the caller
 * gets the previous report marked `refreshing`, or `computing` when there is none yet.
 */
import { contentGapFingerprint } from "../db/queries/content-gaps";
import { type CachedReport, readReport, reportKey, type ReportParameters } from "../queues/content-gap-cache";
import type { CommandDeps } from "./deps";

export type ReportState = { status: "ready"; report: CachedReport } | { status: "refreshing"; report: CachedReport } | { status: "computing" };

export async function requestContentGapReport(deps: CommandDeps, parameters: ReportParameters): Promise<ReportState> {
  const [fingerprint, cached] = await Promise.all([contentGapFingerprint(deps.db, parameters.orgId, parameters.model), readReport(deps.redis, parameters)]);
  if (cached?.fingerprint === fingerprint) return { status: "ready", report: cached };
  const id = `${reportKey(false, parameters)}:${fingerprint}`;
  await deps.producer.enqueue("content-gaps", { ...parameters, fingerprint }, { deduplication: { id } });
  return cached ? { status: "refreshing", report: cached } : { status: "computing" };
}
