/** The learning catalogue a client needs to offer tutor context: courses the caller may use, with lessons. */
import { listPickableCourses } from "../../../db/queries/learning";
import { principalOf } from "../../auth/middleware";
import { coursesResponse } from "../../openapi/responses";
import { defineRoute } from "../define-route";

export const learningRoutes = [
  // The same rule POST /api/v1/chat applies to `context.course_id`, so a picked course is never refused.
  defineRoute({
    method: "get",
    path: "/api/v1/learning/courses",
    tag: "caller",
    summary: "Courses the caller may use as tutor context, with their lessons",
    description: "Employees: enrolled and not archived; admins: every course of their organisation. Exactly what POST /api/v1/chat accepts.",
    access: "bearer",
    responses: { 200: { description: "The courses, by title.", schema: coursesResponse } },
    handler: async (ctx, _input, deps) => {
      const { orgId, userId } = principalOf(ctx);
      ctx.body = { courses: await listPickableCourses(deps.db, { orgId, userId }) };
    },
  }),
];
