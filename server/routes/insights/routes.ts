/**
 * What admins learn from the tutor (admins only, their own organisation): the content-gap report
 * (questions the company material does not answer, grouped by meaning) and AI usage and cost.
 */
import Router from "@koa/router";
import { listAnsweredQuestions } from "../../../db/queries/content-gaps";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { parseInput } from "../../validation";
import { groupContentGaps } from "./group-questions";
import { contentGapsQuery, sinceOf } from "./schema";

/** The report shows the groups affecting most employees; the rest wait until these are fixed. */
const MAX_GROUPS = 50;

export function insightsRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/admin/insights" });
  router.use(requireAuth(deps), requireRole("admin"));

  router.get("/content-gaps", async (ctx) => {
    const since = sinceOf(parseInput(contentGapsQuery, ctx.query, "query"));
    const questions = await listAnsweredQuestions(deps.db, principalOf(ctx).orgId, { since, model: deps.config.EMBEDDING_MODEL });
    const groups = groupContentGaps(questions, deps.config.CONTENT_GAP_SIMILARITY).slice(0, MAX_GROUPS);
    ctx.body = {
      since: since.toISOString(),
      similarity: deps.config.CONTENT_GAP_SIMILARITY,
      groups: groups.map((g) => ({
        id: g.id,
        count: g.count,
        employees: g.employees,
        examples: g.examples,
        languages: g.languages,
        departments: g.departments,
        first_asked: g.firstAsked.toISOString(),
        last_asked: g.lastAsked.toISOString(),
      })),
    };
  });

  return router;
}
