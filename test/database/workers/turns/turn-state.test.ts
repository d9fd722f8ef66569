/**
 * A turn's state in Redis: the cross-process cancel flag (a watch fires within a poll of the flag
 * being set, and only for its own turn), the checkpoints a redelivered attempt resumes from, and
 * the one clean-up that drops them while the cancel flag stays.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { requestTurnCancel } from "../../../../queues/turn-keys";
import { clearTurnState, isRedelivery, isTurnCancelled, keepCheckpoint, keptCheckpoints, TurnCancelWatcher } from "../../../../workers/turns/turn-state";
import { type DatabaseLane, useDatabase } from "../../../support/database";

describe("turn state", function () {
  this.timeout(30_000);
  let lane: DatabaseLane;

  before(async function () {
    this.timeout(120_000);
    lane = await useDatabase();
  });

  it("aborts the watched turn's signal within a poll, leaves other turns alone, and answers check() at once", async () => {
    const redis = lane.deps.redis;
    const watcher = new TurnCancelWatcher(redis, 50);
    const [cancelled, untouched] = [randomUUID(), randomUUID()];
    const watch = watcher.watch(cancelled);
    const other = watcher.watch(untouched);
    try {
      expect(await watch.check()).to.equal(false);
      const aborted = new Promise<number>((resolve) => watch.signal.addEventListener("abort", () => resolve(performance.now())));
      const requested = performance.now();
      await requestTurnCancel(redis, cancelled);
      const abortedAt = await aborted;
      expect(abortedAt - requested).to.be.below(1_000);
      expect(watch.cancelled).to.equal(true);
      expect(await isTurnCancelled(redis, cancelled)).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(other.cancelled).to.equal(false);
      expect(await other.check()).to.equal(false);
      // A stage that starts after the cancel sees it without waiting for a poll.
      const late = watcher.watch(cancelled);
      expect(await late.check()).to.equal(true);
      late.stop();
    } finally {
      watch.stop();
      other.stop();
    }
  });

  it("keeps checkpoints under the turn, reads them in one call, and clears them all at the end while the cancel flag stays", async () => {
    const redis = lane.deps.redis;
    const [turnId, other] = [randomUUID(), randomUUID()];
    expect(await keptCheckpoints(redis, turnId)).to.deep.equal({});
    await keepCheckpoint(redis, turnId, "intent", { intent: "chitchat", decidedBy: "heuristic" });
    await keepCheckpoint(redis, turnId, "answer", { text: "Hola" });
    await keepCheckpoint(redis, other, "retrieval", { rung: "general" });
    await requestTurnCancel(redis, turnId);
    expect(await keptCheckpoints(redis, turnId)).to.deep.equal({ intent: { intent: "chitchat", decidedBy: "heuristic" }, answer: { text: "Hola" } });
    await clearTurnState(redis, turnId);
    expect(await keptCheckpoints(redis, turnId)).to.deep.equal({});
    expect(await isTurnCancelled(redis, turnId), "the flag outlives the turn's state, so a late retry stops too").to.equal(true);
    expect(await keptCheckpoints(redis, other), "another turn's checkpoints are its own").to.deep.equal({ retrieval: { rung: "general" } });
    await clearTurnState(redis, other);
  });

  it("counts a stalled run as a redelivery, like a failed one", () => {
    expect(isRedelivery({ attemptsMade: 0, attemptsStarted: 1 })).to.equal(false);
    expect(isRedelivery({ attemptsMade: 1, attemptsStarted: 2 })).to.equal(true);
    expect(isRedelivery({ attemptsMade: 0, attemptsStarted: 2 }), "its worker died mid-run").to.equal(true);
  });
});
