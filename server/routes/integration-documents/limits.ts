/**
 * A key's document writes count against the same windows as the console's: each PUT is an upload
 * (the key's own window of RATE_LIMIT_UPLOADS_PER_MINUTE, as one admin's, and the organisation's
 * RATE_LIMIT_ORG_UPLOADS_PER_MINUTE, shared with its admins' uploads and all its other keys), and
 * a PUT that indexes a document again (new bytes, or a failed version retried) is also a re-index
 * (RATE_LIMIT_REINDEX_PER_MINUTE per key, RATE_LIMIT_ORG_REINDEX_PER_MINUTE per organisation).
 * So minting keys multiplies nothing: an organisation's ingestion is bounded whoever sends it.
 */
import type { Middleware } from "koa";
import { integrationCallerOf } from "../../auth/integration-key";
import type { ServerDeps } from "../../deps";
import { RateLimiter } from "../../middleware/rate-limit";
import { documentLimitsOf } from "../../middleware/organisation-limits";

/** What the PUT's handler calls just before it would index a document again (nothing stored or queued yet). */
export type ReindexAdmission = () => Promise<void>;

export function reindexAdmissionOf(ctx: Parameters<Middleware>[0]): ReindexAdmission {
  return ctx.state.admitReindex as ReindexAdmission;
}

/**
 * Counts the PUT as one upload before its body is read (a refused one costs no parsing or
 * storage), and leaves the re-index admission for the handler, which alone knows whether the
 * bytes are new.
 */
export function keyDocumentWindows(deps: Pick<ServerDeps, "redis" | "config" | "db">): Middleware {
  const limiter = new RateLimiter(deps.redis);
  return async (ctx, next) => {
    const caller = integrationCallerOf(ctx);
    const window = { userId: caller.key.id, orgId: caller.orgId };
    await limiter.consumeFor(window, "upload", await documentLimitsOf(deps, caller.orgId, "upload"));
    ctx.state.admitReindex = (async () =>
      limiter.consumeFor(window, "reindex", await documentLimitsOf(deps, caller.orgId, "reindex"))) satisfies ReindexAdmission;
    await next();
  };
}
