/**
 * What a worker remembers between jobs (workers/search-caches.ts): every cache is bounded both by
 * entries and by age, so neither a flood of organisations nor a long-lived process grows it without
 * end and nothing is trusted past its time.
 */
import { expect } from "chai";
import { searchCaches } from "../../../workers/search-caches";

describe("a worker's search caches", () => {
  it("are each bounded by a number of entries and an age", () => {
    const caches = searchCaches();
    const all = { ...caches.vectorSearch, tailDecisions: caches.tailDecisions, termFrequencies: caches.termFrequencies };
    for (const [name, cache] of Object.entries(all)) {
      expect(cache.max, name).to.be.within(1, 100_000);
      expect(cache.ttl, name).to.be.within(1, 10 * 60_000);
    }
  });

  it("keep a falsy answer (an organisation with 0 chunks, a decision of false) as an answer, for a bounded time", () => {
    const caches = searchCaches();
    caches.vectorSearch.orgSizes.set("org", 0);
    caches.tailDecisions.set("org", false);
    expect(caches.vectorSearch.orgSizes.get("org")).to.equal(0);
    expect(caches.tailDecisions.get("org")).to.equal(false);
    expect(caches.tailDecisions.getRemainingTTL("org")).to.be.within(1, caches.tailDecisions.ttl);
  });
});
