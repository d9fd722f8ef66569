/** The cooldown breaker with an injected clock. */
import { expect } from "chai";
import { ModelCooldowns } from "../../../../workers/llm/cooldowns";

describe("ModelCooldowns", () => {
  let now: number;
  let cooldowns: ModelCooldowns;
  beforeEach(() => {
    now = 1_000_000;
    cooldowns = new ModelCooldowns(() => now);
  });

  it("cools a rate-limited model for about a minute", () => {
    cooldowns.trip("a", "rate_limited");
    expect(cooldowns.isCooling("a")).to.equal(true);
    now += 59_000;
    expect(cooldowns.isCooling("a")).to.equal(true);
    now += 1_000;
    expect(cooldowns.isCooling("a")).to.equal(false);
  });

  it("honours a Retry-After longer than the minute", () => {
    cooldowns.trip("a", "rate_limited", 90_000);
    now += 75_000;
    expect(cooldowns.isCooling("a")).to.equal(true);
    now += 15_000;
    expect(cooldowns.isCooling("a")).to.equal(false);
  });

  it("cools a missing model (404) for about an hour", () => {
    cooldowns.trip("a", "not_found");
    now += 59 * 60_000;
    expect(cooldowns.isCooling("a")).to.equal(true);
    now += 60_000;
    expect(cooldowns.isCooling("a")).to.equal(false);
  });

  it("does not cool a model for a rejected request (the request was wrong, not the model)", () => {
    cooldowns.trip("a", "rejected");
    expect(cooldowns.isCooling("a")).to.equal(false);
  });

  it("orders the chain: ready models in configured order, cooling ones left out", () => {
    cooldowns.trip("b", "transient");
    expect(cooldowns.order(["a", "b", "c"])).to.deep.equal(["a", "c"]);
    expect(cooldowns.order([])).to.deep.equal([]);
    now += 60_000;
    expect(cooldowns.order(["a", "b", "c"])).to.deep.equal(["a", "b", "c"]);
  });

  it("when every model is cooling, offers only the one that recovers first", () => {
    cooldowns.trip("a", "not_found"); // an hour
    cooldowns.trip("b", "rate_limited", 120_000); // two minutes
    cooldowns.trip("c", "auth"); // five minutes
    expect(cooldowns.order(["a", "b", "c"])).to.deep.equal(["b"]);
    expect(cooldowns.order(["c", "a"])).to.deep.equal(["c"]);
  });

  it("clear() forgets every cooldown", () => {
    cooldowns.trip("a", "not_found");
    cooldowns.clear();
    expect(cooldowns.isCooling("a")).to.equal(false);
  });
});
