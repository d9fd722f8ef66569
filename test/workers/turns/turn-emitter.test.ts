/**
 * The turn emitter against a real Redis and the real event log: tokens reach the log at once and
 * in order, and any other event of the turn — also one from another emitter of the turn, like a
 * failure announcement after the stream broke — lands after every token emitted before it.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextTick } from "node:timers/promises";
import { expect } from "chai";
import { Redis } from "ioredis";
import { findFreePort, type ManagedChild } from "../../../launcher/embedded/child-process";
import { startEmbeddedRedis } from "../../../launcher/embedded/redis";
import { TurnEventLog } from "../../../queues/events/turn-stream";
import { turnEmitter } from "../../../workers/turns/turn-emitter";

describe("turn emitter", function () {
  this.timeout(30_000);
  let dir: string;
  let child: ManagedChild;
  let redis: Redis;
  let log: TurnEventLog;

  before(async function () {
    this.timeout(60_000);
    dir = mkdtempSync(join(tmpdir(), "skillnet-emitter-"));
    const own = await startEmbeddedRedis({ port: await findFreePort(), dataDir: dir, persistent: false, log: () => undefined });
    child = own.child;
    redis = new Redis(own.url);
    log = new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 10_000 });
  });
  after(async () => {
    await redis?.quit();
    await child?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const logged = async (turnId: string) =>
    (await log.read(turnId, 1)).map((entry) => [entry.event, (entry.payload as { content?: string }).content ?? (entry.payload as { stage?: string }).stage]);

  /** Emits each token in a tick of its own, after the previous append has been answered: no joining by the log alone. */
  async function streamSlowly(emit: (content: string) => Promise<unknown>, tokens: string[]): Promise<void> {
    for (const token of tokens) {
      await emit(token);
      await log.flushed();
      await nextTick();
    }
  }

  const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `);

  it("sends each token as an append of its own as soon as the previous one is answered", async () => {
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const events = turnEmitter(log, sessionId, turnId);
    const tokens = words(5, "b");
    await streamSlowly((content) => events.emit("token", { content }), tokens);
    expect(await logged(turnId)).to.deep.equal(tokens.map((token) => ["token", token]));
  });

  it("puts another emitter's event of the turn (a failure announcement) after every token emitted before it", async () => {
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const streaming = turnEmitter(log, sessionId, turnId);
    const tokens = words(4, "d");
    // All in one tick: the appends are still on their way when the failure is announced.
    for (const content of tokens) await streaming.emit("token", { content });
    // The stage's own emitter is gone (its stream broke); the failure comes from a new one.
    await turnEmitter(log, sessionId, turnId).emit("error", { code: "LLM_UNAVAILABLE", message: "gone", willRetry: true });
    const entries = await logged(turnId);
    expect(entries.at(-1)).to.deep.equal(["error", undefined]);
    expect(
      entries
        .slice(0, -1)
        .map(([, content]) => content)
        .join(""),
    ).to.equal(tokens.join(""));
  });

  it("with frames, sends the held tokens with the turn's next event at once instead of at the frame's end", async () => {
    const framed = new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 10_000, frameMs: 10_000, framesFromStreams: 0 });
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const events = turnEmitter(framed, sessionId, turnId);
    await events.emit("token", { content: "first " });
    await framed.flushed();
    await events.emit("token", { content: "held " });
    await events.emit("token", { content: "too" });
    const started = performance.now();
    await events.emit("stage", { stage: "generate", status: "completed" });
    expect(performance.now() - started, "the stage event did not wait out the 10-s frame").to.be.below(2_000);
    expect(await logged(turnId)).to.deep.equal([
      ["token", "first "],
      ["token", "held too"],
      ["stage", "generate"],
    ]);
  });
});
