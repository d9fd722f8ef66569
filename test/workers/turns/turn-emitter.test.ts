/**
 * The turn emitter's token window, against a real Redis and the real event log: a turn's tokens
 * emitted over many ticks leave in fewer appends than there were tokens (the first at once, and
 * any token after a quiet spell longer than the window), any
 * other event of the turn sends the held ones before itself, and tokens held when the stream
 * ends — by the window, the cap or a shutdown's release — all reach the log once, in order.
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
import { MAX_HELD_TOKENS, releaseHeldTokens, turnEmitter } from "../../../workers/turns/turn-emitter";

describe("turn emitter token window", function () {
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

  it("sends a burst of tokens in fewer appends than tokens, the first one alone, and a later event after them", async () => {
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const events = turnEmitter(log, sessionId, turnId, { ms: 60_000 });
    const tokens = words(10, "a");
    await streamSlowly((content) => events.emit("token", { content }), tokens);
    // The window has not ended: only the first token is in the log.
    expect(await logged(turnId)).to.deep.equal([["token", tokens[0]]]);
    await events.emit("stage", { stage: "generate", status: "completed" });
    expect(await logged(turnId)).to.deep.equal([
      ["token", tokens[0]],
      ["token", tokens.slice(1).join("")],
      ["stage", "generate"],
    ]);
  });

  it("without a window sends each of those tokens as an append of its own", async () => {
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const events = turnEmitter(log, sessionId, turnId, { ms: 0 });
    const tokens = words(5, "b");
    await streamSlowly((content) => events.emit("token", { content }), tokens);
    expect(await logged(turnId)).to.deep.equal(tokens.map((token) => ["token", token]));
  });

  it("sends a token at once when no token left the process within the window (a quiet worker adds no delay)", async () => {
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const events = turnEmitter(log, sessionId, turnId, { ms: 20 });
    await events.emit("token", { content: "one " });
    await log.flushed();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await events.emit("token", { content: "two " });
    await log.flushed();
    expect(await logged(turnId)).to.deep.equal([
      ["token", "one "],
      ["token", "two "],
    ]);
  });

  it("sends held tokens when the window ends, every turn's in one append call", async () => {
    const turns = [randomUUID(), randomUUID(), randomUUID()];
    const emitters = turns.map((turnId) => turnEmitter(log, randomUUID(), turnId, { ms: 20 }));
    await Promise.all(emitters.map((events, i) => events.emit("token", { content: `first${i} ` })));
    await log.flushed();
    let calls = 0;
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: Parameters<Redis["sendCommand"]>[0]) => {
      if (command.name.startsWith("eval")) calls++;
      return send(command);
    }) as Redis["sendCommand"];
    try {
      for (const round of [0, 1, 2]) {
        for (const [i, events] of emitters.entries()) await events.emit("token", { content: `r${round}t${i} ` });
        await nextTick();
      }
      // No event follows: the window's timer alone sends them.
      while ((await Promise.all(turns.map(logged))).some((entries) => entries.length < 2)) await new Promise((resolve) => setTimeout(resolve, 10));
      await log.flushed();
    } finally {
      redis.sendCommand = send;
    }
    expect(calls, "append calls for 9 held tokens of 3 turns").to.equal(1);
    for (const [i, turnId] of turns.entries())
      expect(await logged(turnId)).to.deep.equal([
        ["token", `first${i} `],
        ["token", `r0t${i} r1t${i} r2t${i} `],
      ]);
  });

  it("sends a turn's held tokens once MAX_HELD_TOKENS wait, whatever the window", async () => {
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const events = turnEmitter(log, sessionId, turnId, { ms: 60_000 });
    const tokens = words(1 + MAX_HELD_TOKENS + 3, "c");
    await streamSlowly((content) => events.emit("token", { content }), tokens);
    expect(await logged(turnId)).to.deep.equal([
      ["token", tokens[0]],
      ["token", tokens.slice(1, 1 + MAX_HELD_TOKENS).join("")],
    ]);
    releaseHeldTokens();
    await log.flushed();
    expect((await logged(turnId)).map(([, content]) => content).join("")).to.equal(tokens.join(""));
  });

  it("loses nothing when the stream ends: another emitter of the turn (a failure announcement) and a shutdown release send held tokens first", async () => {
    const [sessionId, turnId, other] = [randomUUID(), randomUUID(), randomUUID()];
    const streaming = turnEmitter(log, sessionId, turnId, { ms: 60_000 });
    const tokens = words(4, "d");
    await streamSlowly((content) => streaming.emit("token", { content }), tokens);
    // The stage's own emitter is gone (its stream broke); the failure comes from a new one.
    await turnEmitter(log, sessionId, turnId).emit("error", { code: "LLM_UNAVAILABLE", message: "gone", willRetry: true });
    expect(await logged(turnId)).to.deep.equal([
      ["token", tokens[0]],
      ["token", tokens.slice(1).join("")],
      ["error", undefined],
    ]);

    const stopping = turnEmitter(log, sessionId, other, { ms: 60_000 });
    await streamSlowly((content) => stopping.emit("token", { content }), tokens);
    releaseHeldTokens();
    await log.flushed();
    expect((await logged(other)).map(([, content]) => content).join("")).to.equal(tokens.join(""));
  });
});
