/**
 * Review finding F11 on the real stack, with two organisations: a content-gap report's `since` is
 * always rounded down to the hour (the review's recipe, sixty starts a millisecond apart, queues
 * one job, not sixty), and the distinct window starts an organisation may have computed per hour
 * are capped (429 CONTENT_GAP_REPORTS_EXHAUSTED with Retry-After until the next hour), while a
 * window it already asked for still answers and another organisation's reports are not affected.
 * The flood and the jobs it queues run with the event loop never blocked past the bound.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { CONTENT_GAP_WINDOWS_PER_HOUR } from "../../../../queues/content-gap-cache";
import { createApp } from "../../../../server/app";
import type { ServerDeps } from "../../../../server/deps";
import { sinceOf } from "../../../../server/routes/insights/schema";
import { api, waitFor } from "../../../harness/client";
import { expectNoLongBlock } from "../../../support/event-loop-block";
import { dropOrganisations } from "../../../support/organizations";
import { stackSuite } from "../../../support/suite";
import { cleanUp, freshUser, type Person } from "../../../workers/admin/helpers";
import { freshOrganisation } from "../allowance/helpers";
import { configWith } from "../../../support/tunables";

describe("content gaps: rounded windows and a cap on distinct reports per hour (F11)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000, resetModel: false });
  let server: Server;
  let url: string;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;

  const gaps = (token: string, since: string) => api(url, "GET", `/api/v1/admin/insights/content-gaps?since=${encodeURIComponent(since)}`, { token });
  /** Every content-gaps job of the organisation, whatever its state, by window start. */
  const jobWindows = async (orgId: string): Promise<string[]> => {
    const jobs = await stack.server.deps.producer.queue("content-gaps").getJobs(["waiting", "active", "completed", "failed", "delayed", "prioritized"], 0, -1);
    return jobs.filter((job) => job?.data?.orgId === orgId).map((job) => job.data.since as string);
  };
  const hourStart = (daysAgo: number, hour: number) => new Date(Date.UTC(2026, 9, 1 + daysAgo, hour)).toISOString();

  before(async () => {
    // The per-admin minute limit is another rule (tested in content-gaps.test.ts): high here, so the per-hour cap is what answers.
    server = createServer(
      createApp({ ...stack.server.deps, config: configWith(stack.server.deps.config, { RATE_LIMIT_CONTENT_GAPS_PER_MINUTE: 1_000 }) } as ServerDeps).callback(),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    orgA = await freshOrganisation(stack, "Gap windows A");
    orgB = await freshOrganisation(stack, "Gap windows B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgA, orgB]);
  });

  it("rounds any since down to the hour", () => {
    expect(sinceOf({ since: "2026-11-01T10:59:59.999Z" }).toISOString()).to.equal("2026-11-01T10:00:00.000Z");
    expect(sinceOf({ since: "2026-11-01T10:30:00+05:30" }).toISOString()).to.equal("2026-11-01T05:00:00.000Z");
    expect(sinceOf({ since: "2026-11-01" }).toISOString()).to.equal("2026-11-01T00:00:00.000Z");
  });

  it("queues one job for sixty starts a millisecond apart (the review's recipe), all answered with the hour", async () => {
    const answers = await expectNoLongBlock("sixty content-gap requests and their job", async () => {
      const sent = [];
      for (let i = 1; i <= 60; i += 1) sent.push(await gaps(adminA.token, `2026-11-01T00:00:00.${String(i).padStart(3, "0")}Z`));
      await waitFor(async () => (await gaps(adminA.token, "2026-11-01T00:30:00Z")).body.status === "ready" || undefined, 20_000, "the report");
      return sent;
    });
    expect(answers.map((answer) => answer.status)).to.satisfy((statuses: number[]) => statuses.every((status) => status === 200 || status === 202));
    expect(new Set(answers.map((answer) => answer.body.since))).to.deep.equal(new Set(["2026-11-01T00:00:00.000Z"]));
    expect(await jobWindows(orgA)).to.deep.equal(["2026-11-01T00:00:00.000Z"]);
  });

  it(`caps distinct windows at ${CONTENT_GAP_WINDOWS_PER_HOUR} per organisation per hour (429 with Retry-After); counted ones still answer, another organisation is not affected`, async () => {
    // The test above counted one window of this hour already.
    const starts = Array.from({ length: CONTENT_GAP_WINDOWS_PER_HOUR + 4 }, (_, i) => hourStart(i, 3));
    const answers = await expectNoLongBlock("a flood of distinct content-gap windows", async () => {
      const sent = [];
      for (const since of starts) sent.push(await gaps(adminA.token, since));
      return sent;
    });
    const admitted = answers.filter((answer) => answer.status !== 429);
    expect(admitted, "this hour's other windows").to.have.length(CONTENT_GAP_WINDOWS_PER_HOUR - 1);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).to.have.length(5);
    for (const answer of refused) {
      expect(answer.body.error.code).to.equal("CONTENT_GAP_REPORTS_EXHAUSTED");
      expect(answer.body.error.retry_after).to.be.within(1, 3600);
      expect(answer.headers.get("retry-after")).to.equal(String(answer.body.error.retry_after));
    }
    expect(new Set(await jobWindows(orgA)).size, "no job for a refused window").to.equal(CONTENT_GAP_WINDOWS_PER_HOUR);

    const counted = await gaps(adminA.token, starts[0]!);
    expect(counted.status, "a window already counted").to.be.oneOf([200, 202]);
    const elsewhere = await gaps(adminB.token, starts.at(-1)!);
    expect(elsewhere.status, "organisation B's first window").to.equal(202);
    expect(elsewhere.body.status).to.equal("computing");
  });
});
