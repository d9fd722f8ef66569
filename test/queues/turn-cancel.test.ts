/** The cross-process cancel flag: a watch fires within a poll of the flag being set, and only for its own turn. */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { TurnCancelWatcher, isTurnCancelled, requestTurnCancel } from "../../queues/turn-cancel";
import { useStack, type Stack } from "../support/stack";

describe("turn cancel signal", function () {
  this.timeout(30_000);
  let stack: Stack;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });

  it("aborts the watched turn's signal within a poll, leaves other turns alone, and answers check() at once", async () => {
    const redis = stack.server.deps.redis;
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
});
