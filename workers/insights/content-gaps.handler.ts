/**
 * `content-gaps`: computes one organisation's content-gap report and caches it for the server
 * (queues/content-gap-cache.ts). The read is capped (MAX_REPORTED_QUESTIONS) and the grouping is
 * bounded and yields to the event loop (group-questions.ts), so a large organisation costs this
 * worker a bounded, interruptible slice of CPU and never an HTTP request's time.
 */
import { listAnsweredQuestions } from "../../db/queries/content-gaps";
import { writeReport } from "../../queues/content-gap-cache";
import { defineHandler } from "../registry";
import { groupContentGaps } from "./group-questions";

/** The report shows the groups affecting most employees; the rest wait until these are fixed. */
export const MAX_REPORTED_GROUPS = 50;

export const contentGapsHandler = defineHandler({
  queue: "content-gaps",
  async perform({ data, deps, log }) {
    const started = performance.now();
    const questions = await listAnsweredQuestions(deps.db, data.orgId, { since: new Date(data.since), model: data.model });
    const groups = (await groupContentGaps(questions, data.similarity)).slice(0, MAX_REPORTED_GROUPS);
    await writeReport(
      deps.redis,
      data,
      {
        fingerprint: data.fingerprint,
        computedAt: new Date().toISOString(),
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
      },
      deps.config.contentGaps.CONTENT_GAP_CACHE_TTL_SECONDS,
    );
    const ms = Math.round(performance.now() - started);
    log.info({ orgId: data.orgId, questions: questions.length, groups: groups.length, ms }, "content-gap report computed and cached");
    return { questions: questions.length, groups: groups.length, ms };
  },
});
