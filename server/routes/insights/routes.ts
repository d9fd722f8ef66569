/**
 * What admins learn from the tutor (admins only, their own organisation): the content-gap report
 * (questions the company material does not answer, grouped by meaning) and AI usage and cost.
 * The report is computed by a worker and cached (commands/content-gap-report.ts): this route
 * answers from the cache, or `202 computing` while the first report is worked out.
 */
import Router from "@koa/router";
import { requestContentGapReport } from "../../../commands/content-gap-report";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { RateLimiter } from "../../middleware/rate-limit";
import { parseInput } from "../../validation";
import { contentGapsQuery, sinceOf } from "./schema";

/** How soon the page asks again while a report is computed (seconds). */
const RETRY_AFTER_SECONDS = 2;

export function insightsRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/admin/insights" });
  const limiter = new RateLimiter(deps.redis);
  const perAdmin = { bucket: "content-gaps", limit: deps.config.RATE_LIMIT_CONTENT_GAPS_PER_MINUTE, windowMs: 60_000 };
  router.use(requireAuth(deps), requireRole("admin"));

  router.get("/content-gaps", async (ctx) => {
    const principal = principalOf(ctx);
    await limiter.consume(principal.userId, perAdmin, "user");
    const since = sinceOf(parseInput(contentGapsQuery, ctx.query, "query"));
    const parameters = {
      orgId: principal.orgId,
      since: since.toISOString(),
      similarity: deps.config.CONTENT_GAP_SIMILARITY,
      model: deps.config.EMBEDDING_MODEL,
    };
    const state = await requestContentGapReport(deps, parameters);
    const head = { status: state.status, since: parameters.since, similarity: parameters.similarity };
    if (state.status === "computing") {
      ctx.status = 202;
      ctx.set("Retry-After", String(RETRY_AFTER_SECONDS));
      ctx.body = { ...head, retry_after: RETRY_AFTER_SECONDS, computed_at: null, groups: [] };
      return;
    }
    if (state.status === "refreshing") ctx.set("Retry-After", String(RETRY_AFTER_SECONDS));
    ctx.body = {
      ...head,
      retry_after: state.status === "refreshing" ? RETRY_AFTER_SECONDS : null,
      computed_at: state.report.computedAt,
      groups: state.report.groups,
    };
  });

  return router;
}
