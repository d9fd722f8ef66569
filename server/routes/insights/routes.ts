/**
 * What admins learn from the tutor (admins only, their own organisation): the content-gap report
 * (questions the company material does not answer, grouped by meaning) and AI usage and cost.
 * The report is computed by a worker and cached (commands/content-gap-report.ts): this route
 * answers from the cache, or `202 computing` while the first report is worked out.
 */
import { requestContentGapReport } from "../../../commands/content-gap-report";
import { CONTENT_GAP_WINDOWS_PER_HOUR } from "../../../queues/content-gap-cache";
import { retentionOf } from "../../../db/queries/chat-retention";
import { principalOf } from "../../auth/middleware";
import { RateLimiter } from "../../middleware/rate-limit";
import { defineRoute } from "../define-route";
import { contentGapsQuery, contentGapsResponse, sinceOf, withinRetention } from "./schema";
import { contentGapLimitOf } from "../../middleware/organisation-limits";

/** How soon the page asks again while a report is computed (seconds). */
const RETRY_AFTER_SECONDS = 2;

export const insightsRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/insights/content-gaps",
    tag: "insights",
    summary: "What employees ask that the company material does not answer, grouped by meaning",
    description:
      "Tutor questions answered on the `general` rung or rated down, asked by people still active, grouped by embedding similarity, ranked by how many employees each group affects (at most 50). A group leaves once a later question of it is answered from company material. Questions are embedded by the `question-vectors` sweep, so a new one can take half a minute to appear. The grouping runs in a worker and is cached per organisation until new questions, ratings or (de)activated people change it (or CONTENT_GAP_CACHE_TTL_SECONDS pass): the first request answers 202 `computing`, later ones the report. Never looks back further than the organisation's chat retention (`PUT /api/v1/admin/retention`): `since` answers the window's start used. `since` is rounded down to the hour. Limited to RATE_LIMIT_CONTENT_GAPS_PER_MINUTE per admin, and to " +
      `${CONTENT_GAP_WINDOWS_PER_HOUR} distinct window starts computed per organisation per hour (429 CONTENT_GAP_REPORTS_EXHAUSTED past it, until the next hour; windows already computed still answer).`,
    access: "admin",
    query: contentGapsQuery,
    rateLimited: true,
    responses: {
      200: { description: "The report (`ready`, or the previous one while `refreshing`).", schema: contentGapsResponse },
      202: { description: "Being computed: no report yet; ask again after `Retry-After` seconds.", schema: contentGapsResponse },
    },
    errors: ["CONTENT_GAP_REPORTS_EXHAUSTED"],
    use: (deps) => {
      const limiter = new RateLimiter(deps.redis);
      return [
        async (ctx, next) => {
          const { userId, orgId } = principalOf(ctx);
          await limiter.consume(userId, { bucket: "content-gaps", limit: await contentGapLimitOf(deps, orgId), windowMs: 60_000 }, "user");
          await next();
        },
      ];
    },
    handler: async (ctx, { query }, deps) => {
      const principal = principalOf(ctx);
      // Nothing older than the organisation keeps: questions the sweep has yet to delete included.
      const since = withinRetention(sinceOf(query), (await retentionOf(deps.db, principal.orgId)).chat_retention_days);
      const parameters = {
        orgId: principal.orgId,
        since: since.toISOString(),
        similarity: deps.config.contentGaps.CONTENT_GAP_SIMILARITY,
        model: deps.config.embedding.EMBEDDING_MODEL,
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
    },
  }),
];
