/**
 * The content-gap window within an organisation's chat retention (withinRetention): never further
 * back than the retention, moved up to the next hour boundary (one cached report per hour), and
 * left alone without a retention or when it starts later anyway.
 */
import { expect } from "chai";
import { withinRetention } from "../../../../../server/routes/insights/schema";

const DAY_MS = 86_400_000;
const now = Date.parse("2026-12-03T10:17:42.123Z");

describe("content gaps: the window within the retention", () => {
  it("keeps the asked start when there is no retention", () => {
    const since = new Date("2020-01-01T00:00:00Z");
    expect(withinRetention(since, null, now)).to.deep.equal(since);
  });

  it("moves an earlier start up to the first hour boundary after now minus the retention", () => {
    const moved = withinRetention(new Date("2020-01-01T00:00:00Z"), 30, now);
    expect(moved.toISOString()).to.equal("2026-11-03T11:00:00.000Z");
    expect(moved.getTime()).to.be.at.least(now - 30 * DAY_MS);
    // Every request of that hour names the same window (and so the same cached report).
    expect(withinRetention(new Date(0), 30, now + 20 * 60_000).toISOString()).to.equal("2026-11-03T11:00:00.000Z");
  });

  it("keeps an exact hour boundary, and a start already inside the retention", () => {
    const onTheHour = Date.parse("2026-12-03T10:00:00.000Z");
    expect(withinRetention(new Date(0), 1, onTheHour).toISOString()).to.equal("2026-12-02T10:00:00.000Z");
    const recent = new Date("2026-12-01T08:30:00Z");
    expect(withinRetention(recent, 30, now)).to.deep.equal(recent);
  });
});
