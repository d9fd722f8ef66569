/** Admin insights: the content-gap report and AI usage and cost. */
import { z } from "zod";
import { contentGapsQuery } from "../../routes/insights/schema";
import { defineRoutes } from "../registry";

const timestamp = z.iso.datetime({ offset: true });

export const contentGapsResponse = z.strictObject({
  since: timestamp,
  similarity: z.number().describe("CONTENT_GAP_SIMILARITY: the cosine at which questions are one group."),
  groups: z.array(
    z.strictObject({
      id: z.uuid().describe("The group's first question; stable while the group lasts."),
      count: z.number().int().describe("Questions in the group."),
      employees: z.number().int().describe("Distinct people who asked them; the report is ranked by this."),
      examples: z.array(z.string()).describe("Up to three of its questions, newest first."),
      languages: z.array(z.string()),
      departments: z.array(z.string()),
      first_asked: timestamp,
      last_asked: timestamp,
    }),
  ),
});

/** What the admin console reads (imported as a type only: nothing of the server is bundled). */
export type ContentGapsBody = z.infer<typeof contentGapsResponse>;

export const insightsRoutes = defineRoutes([
  {
    method: "get",
    path: "/api/v1/admin/insights/content-gaps",
    tag: "insights",
    summary: "What employees ask that the company material does not answer, grouped by meaning",
    description:
      "Tutor questions answered on the `general` rung or rated down, grouped by embedding similarity, ranked by how many employees each group affects (at most 50). A group leaves once a later question of it is answered from company material. Questions are embedded by the `question-vectors` sweep, so a new one can take half a minute to appear.",
    access: "admin",
    query: contentGapsQuery,
    responses: { 200: { description: "The groups.", schema: contentGapsResponse } },
  },
]);
