/**
 * The batched event log against real Redis: events emitted together share one script call and
 * one PUBLISH, each log numbers its events 1, 2, 3 … in emission order, tokens queued back to
 * back travel as one event, and nothing queued while a call is in flight is left behind.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Redis } from "ioredis";
import { TURN_EVENTS_CHANNEL } from "../../../../queues/events/stream-keys";
import { parseEnvelopes } from "../../../../queues/events/stream-reader";
import { TurnEventLog } from "../../../../queues/events/turn-stream";
import type { TurnEventEnvelope } from "../../../../queues/events/contract";
import { type DatabaseLane, useDatabase } from "../../../support/database";

describe("turn event log (batched appends)", function () {
  this.timeout(30_000);
  let lane: DatabaseLane;
  let subscriber: Redis;
  let messages: TurnEventEnvelope[][];

  before(async function () {
    this.timeout(120_000);
    lane = await useDatabase();
    subscriber = lane.deps.redis.duplicate();
    await subscriber.subscribe(TURN_EVENTS_CHANNEL);
    subscriber.on("message", (_channel, message) => messages.push(parseEnvelopes(message)));
  });

  beforeEach(() => {
    messages = [];
  });

  after(async () => {
    await subscriber.quit();
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

  /** Counts the script calls this connection sends (INFO commandstats would count BullMQ's too). */
  function countScriptCalls(redis: Redis): { calls: number } {
    const counter = { calls: 0 };
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: Parameters<Redis["sendCommand"]>[0]) => {
      if (command.name.startsWith("eval")) counter.calls++;
      return send(command);
    }) as Redis["sendCommand"];
    return counter;
  }

  it("sends events of many turns emitted together in one call and one message, numbered per turn", async () => {
    const redis = lane.deps.redis.duplicate();
    const counter = countScriptCalls(redis);
    const log = new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 1000 });
    const sessionId = randomUUID();
    const turns: string[] = Array.from({ length: 20 }, () => randomUUID());
    try {
      await log.append(sessionId, randomUUID(), "stage", { stage: "classify", status: "started" }); // loads the script
      await settle();
      messages = [];
      const before = counter.calls;
      const appended = turns.flatMap((turnId) => [
        log.append(sessionId, turnId, "stage", { stage: "generate", status: "started" }),
        log.append(sessionId, turnId, "stage", { stage: "generate", status: "completed" }),
        log.append(sessionId, turnId, "stage", { stage: "postprocess", status: "started" }),
      ]);
      const seqs = await Promise.all(appended);
      expect(counter.calls - before, "script calls for 60 events").to.equal(1);
      expect(seqs).to.deep.equal(turns.flatMap(() => [1, 2, 3]));
      await settle();
      const ours = (e: TurnEventEnvelope) => turns.includes((e.data as { turnId?: string }).turnId ?? "");
      const envelopes = messages.flat().filter(ours);
      expect(envelopes).to.have.length(60);
      expect(messages.filter((message) => message.some(ours)).length, "PUBLISH messages").to.equal(1);
      for (const turnId of turns) {
        const published = envelopes.filter((e) => (e.data as { turnId?: string }).turnId === turnId);
        expect(published.map((e) => [e.seq, (e.data as { status?: string }).status])).to.deep.equal([
          [1, "started"],
          [2, "completed"],
          [3, "started"],
        ]);
        expect(published[0]!.room).to.equal(`session:${sessionId}`);
        const logged = await log.read(turnId, 1);
        expect(logged.map((e) => [e.payload.seq, e.event])).to.deep.equal([
          [1, "stage"],
          [2, "stage"],
          [3, "stage"],
        ]);
        expect(await log.read(turnId, 2, 2)).to.have.length(1);
      }
    } finally {
      await log.flushed();
      await redis.quit();
    }
  });

  it("sends events emitted by separate callbacks of one event-loop phase in one call, not the first alone", async () => {
    // Two model streams' chunks are two I/O callbacks of one poll phase. Two immediates queued together are the same
    // shape, and certain to share their phase (two timers may not: their due times can straddle a millisecond).
    const redis = lane.deps.redis.duplicate();
    const counter = countScriptCalls(redis);
    const log = new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 1000 });
    const sessionId = randomUUID();
    const [first, second] = [randomUUID(), randomUUID()];
    try {
      await log.append(sessionId, randomUUID(), "stage", { stage: "classify", status: "started" }); // loads the script
      const before = counter.calls;
      const seqs = await new Promise<number[]>((resolve, reject) => {
        let one: Promise<number>;
        setImmediate(() => (one = log.appendToken(sessionId, first, "a")));
        setImmediate(() => Promise.all([one, log.appendToken(sessionId, second, "b")]).then(resolve, reject));
      });
      expect(seqs).to.deep.equal([1, 1]);
      expect(counter.calls - before, "script calls for two callbacks' tokens").to.equal(1);
    } finally {
      await log.flushed();
      await redis.quit();
    }
  });

  it("joins tokens queued back to back into one event, and starts a new one after any other event", async () => {
    const log = new TurnEventLog(lane.deps.redis, { ttlSeconds: 60, maxEvents: 1000 });
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const sent = [log.appendToken(sessionId, turnId, "Hel"), log.appendToken(sessionId, turnId, "lo")];
    sent.push(log.append(sessionId, turnId, "stage", { stage: "generate", status: "restart" }) as Promise<number>);
    sent.push(log.appendToken(sessionId, turnId, " again"));
    const seqs = await Promise.all(sent);
    expect(seqs).to.deep.equal([1, 1, 2, 3]);
    const logged = await log.read(turnId, 1);
    expect(logged.map((e) => [e.event, (e.payload as { content?: string }).content ?? null])).to.deep.equal([
      ["token", "Hello"],
      ["stage", null],
      ["token", " again"],
    ]);
  });

  describe("frames (frameMs)", () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** A log whose frames last 10 s: only another event of the turn, or flushed(), sends a held token in a test's time. */
    const longFrames = (framesFromStreams = 0) => new TurnEventLog(lane.deps.redis, { ttlSeconds: 60, maxEvents: 1000, frameMs: 10_000, framesFromStreams });

    it("sends a turn's first token at once, then gathers the tokens of each frame into one entry", async () => {
      const redis = lane.deps.redis.duplicate();
      const counter = countScriptCalls(redis);
      const log = new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 1000, frameMs: 60, framesFromStreams: 0 });
      const [sessionId, turnId] = [randomUUID(), randomUUID()];
      try {
        await log.append(sessionId, randomUUID(), "stage", { stage: "classify", status: "started" }); // loads the script
        const before = counter.calls;
        const started = performance.now();
        const first = await log.appendToken(sessionId, turnId, "A");
        const firstMs = performance.now() - started;
        // Three tokens 10 ms apart, all within the first frame: one entry, sent when the frame ends.
        const held: Array<Promise<number>> = [];
        for (const piece of ["b", "c", "d"]) {
          await sleep(10);
          held.push(log.appendToken(sessionId, turnId, piece));
        }
        const seqs = await Promise.all(held);
        const heldMs = performance.now() - started;
        expect(first, "the first token is seq 1").to.equal(1);
        expect(firstMs, "the first token is not held").to.be.below(40);
        expect(seqs).to.deep.equal([2, 2, 2]);
        expect(heldMs, "the held tokens waited for the frame").to.be.at.least(55);
        expect(counter.calls - before, "script calls").to.equal(2);
        // After a quiet frame the next token goes at once again.
        await sleep(80);
        const quiet = performance.now();
        expect(await log.appendToken(sessionId, turnId, "e")).to.equal(3);
        expect(performance.now() - quiet).to.be.below(40);
        const logged = await log.read(turnId, 1);
        expect(logged.map((e) => (e.payload as { content?: string }).content)).to.deep.equal(["A", "bcd", "e"]);
      } finally {
        await log.flushed();
        await redis.quit();
      }
    });

    it("sends a turn's held tokens ahead of its next other event, and a stop sends every held token", async () => {
      const log = longFrames();
      const sessionId = randomUUID();
      const [turnId, other] = [randomUUID(), randomUUID()];
      await log.appendToken(sessionId, turnId, "one");
      await log.appendToken(sessionId, other, "x");
      const held = log.appendToken(sessionId, turnId, " two");
      const heldOther = log.appendToken(sessionId, other, "y");
      // A 10-s frame: only the stage event (for its turn) and flushed() (for the other) can send them.
      const started = performance.now();
      const stage = await log.append(sessionId, turnId, "stage", { stage: "generate", status: "completed" });
      expect([await held, stage]).to.deep.equal([2, 3]);
      await log.flushed();
      expect(await heldOther).to.equal(2);
      expect(performance.now() - started).to.be.below(2_000);
      const logged = await log.read(turnId, 1);
      expect(logged.map((e) => [e.event, (e.payload as { content?: string }).content ?? null])).to.deep.equal([
        ["token", "one"],
        ["token", " two"],
        ["stage", null],
      ]);
      expect((await log.read(other, 1)).map((e) => (e.payload as { content?: string }).content)).to.deep.equal(["x", "y"]);
    });

    it("sends every token at once while the process streams few turns (framesFromStreams)", async () => {
      const log = longFrames(2);
      const sessionId = randomUUID();
      const [one, two, three] = [randomUUID(), randomUUID(), randomUUID()];
      const started = performance.now();
      await log.appendToken(sessionId, one, "a");
      expect(await log.appendToken(sessionId, one, "b"), "one stream: not held").to.equal(2);
      await log.appendToken(sessionId, two, "x");
      await log.appendToken(sessionId, three, "y");
      expect(performance.now() - started, "nothing waited for the 10-s frame").to.be.below(2_000);
      // Three turns streaming, past the threshold of two: the next token within a frame is held.
      const held = log.appendToken(sessionId, one, "c");
      const raced = await Promise.race([held, new Promise((resolve) => setTimeout(() => resolve("held"), 200))]);
      expect(raced).to.equal("held");
      await log.flushed();
      expect(await held).to.equal(3);
    });

    it("keeps frames per turn: one turn's frame never holds another turn's first token", async () => {
      const log = longFrames();
      const sessionId = randomUUID();
      const [busy, fresh] = [randomUUID(), randomUUID()];
      await log.appendToken(sessionId, busy, "a");
      void log.appendToken(sessionId, busy, "b");
      const started = performance.now();
      expect(await log.appendToken(sessionId, fresh, "first")).to.equal(1);
      expect(performance.now() - started).to.be.below(1_000);
      await log.flushed();
    });
  });

  it("delivers every event of a long stream in order while calls overlap with new emits", async () => {
    const log = new TurnEventLog(lane.deps.redis, { ttlSeconds: 60, maxEvents: 10_000 });
    const [sessionId, turnId] = [randomUUID(), randomUUID()];
    const words: string[] = [];
    for (let i = 0; i < 500; i++) {
      words.push(`w${i} `);
      void log.appendToken(sessionId, turnId, `w${i} `);
      // Emit across many ticks so new tokens arrive while a call is in flight and just as one ends.
      if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // Each emitted as soon as the one before is confirmed: queued while the call that confirmed
    // it is still winding down, which must start another call rather than wait forever.
    for (const stage of ["generate", "postprocess"] as const) {
      await log.append(sessionId, turnId, "stage", { stage, status: "completed" });
    }
    const last = await log.append(sessionId, turnId, "done", {
      messageId: randomUUID(),
      tokensUsed: 500,
      retrievalSource: "none",
      retrievalLatencyMs: 0,
      generationLatencyMs: 0,
    });
    const logged = await log.read(turnId, 1);
    expect(logged.map((e) => e.payload.seq)).to.deep.equal(Array.from({ length: last }, (_, i) => i + 1));
    expect(logged.slice(-3).map((e) => e.event)).to.deep.equal(["stage", "stage", "done"]);
    const text = logged
      .filter((e) => e.event === "token")
      .map((e) => (e.payload as { content: string }).content)
      .join("");
    expect(text).to.equal(words.join(""));
    expect(last, "tokens were joined, not sent one by one").to.be.below(500);
  });

  it("behind Sentinel (replicaWaitMs): publishes after the append, once WAIT returned, with the same seqs", async () => {
    const log = new TurnEventLog(lane.deps.redis.duplicate(), { ttlSeconds: 60, maxEvents: 1000, replicaWaitMs: 20 });
    const sessionId = randomUUID();
    const turnId = randomUUID();
    const seqs = await Promise.all([
      log.append(sessionId, turnId, "stage", { stage: "generate", status: "started" }),
      log.appendToken(sessionId, turnId, "Hi"),
    ]);
    await settle();
    expect(seqs).to.deep.equal([1, 2]);
    const published = messages.flat().filter((e) => (e.data as { turnId?: string }).turnId === turnId);
    expect(published.map((e) => [e.event, e.seq])).to.deep.equal([
      ["stage", 1],
      ["token", 2],
    ]);
    expect((await log.read(turnId, 1)).map((e) => e.event)).to.deep.equal(["stage", "token"]);
  });

  it("applies a batch sent twice once (a command resent after a dying master's lost reply), and answers as the first time", async () => {
    const redis = lane.deps.redis.duplicate();
    new TurnEventLog(redis, { ttlSeconds: 60, maxEvents: 1000, replicaWaitMs: 20 }); // defines the script on this connection
    const send = (redis as unknown as Record<string, (...args: string[]) => Promise<Array<number | string>>>).skillnetAppendEvents!.bind(redis);
    const turnId = randomUUID();
    const key = `skillnet:turn:${turnId}:log`;
    // With a batch id its marker is the last key (in the log's slot on a cluster).
    const args = (batchId: string) => [
      ...(batchId ? ["2", key, `skillnet:append-batch:${batchId}`] : ["1", key]),
      "1000",
      "skillnet:test-unheard",
      batchId,
      "token",
      JSON.stringify({ content: "a", turnId }),
      "session:x",
      "60",
    ];
    const batchId = randomUUID();
    const first = await send(...args(batchId));
    const again = await send(...args(batchId));
    expect(again).to.deep.equal(first);
    expect(first.slice(1)).to.deep.equal([1]);
    expect(await redis.xlen(key), "one entry for the batch sent twice").to.equal(1);
    // Without a batch id (a single Redis, nothing resent across a failover) each call appends.
    await send(...args(""));
    expect(await redis.xlen(key)).to.equal(2);
    await redis.quit();
  });

  it("reads single envelopes from an older worker as well as batches", () => {
    const one = { room: "session:a", event: "token", seq: 3, data: { content: "x" } };
    expect(parseEnvelopes(JSON.stringify(one))).to.deep.equal([one]);
    expect(parseEnvelopes(JSON.stringify([one, { ...one, seq: 4 }])).map((e) => e.seq)).to.deep.equal([3, 4]);
    expect(parseEnvelopes("not json")).to.deep.equal([]);
    expect(parseEnvelopes(JSON.stringify([{ room: 1 }]))).to.deep.equal([]);
  });
});
