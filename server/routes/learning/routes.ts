/** The learning catalogue a client needs to offer tutor context: courses the caller may use, with lessons. */
import Router from "@koa/router";
import { listPickableCourses } from "../../../db/queries/learning";
import { principalOf, requireAuth } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";

export function learningRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/learning" });
  router.use(requireAuth(deps));

  // The same rule POST /api/v1/chat applies to `context.course_id`, so a picked course is never refused.
  router.get("/courses", async (ctx) => {
    const { orgId, userId } = principalOf(ctx);
    ctx.body = { courses: await listPickableCourses(deps.db, { orgId, userId }) };
  });

  return router;
}
