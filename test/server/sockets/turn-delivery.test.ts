/**
 * TurnDelivery (server/sockets/turn-delivery.ts) against the real event log in Redis: live
 * events, joins, resumes and gaps all reach one socket exactly once and in `seq` order.
 * The socket is a recorder (the unit's output); the log and its replays are real.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Socket } from "socket.io";
import type { LoggedTurnEvent } from "../../../queues/events/stream-reader";
import type { TurnEventLog } from "../../../queues/events/turn-stream";
import { TurnDelivery, type ReplayReason } from "../../../server/sockets/turn-delivery";
import { useStack } from "../../support/stack";

interface Recorder {
  socket: Socket;
  received: Array<{ event: string; seq: number; sessionId?: string }>;
}

function recorder(): Recorder {
  const received: Recorder["received"] = [];
  const socket = {
    connected: true,
    emit(event: string, payload: { seq: number; sessionId?: string }) {
      received.push({ event, seq: payload.seq, sessionId: payload.sessionId });
      return true;
    },
  };
  return { socket: socket as unknown as Socket, received };
}

describe("TurnDelivery: exactly-once, in-order events per socket", function () {
  this.timeout(30_000);
  let log: TurnEventLog;
  let replays: Array<{ reason: ReplayReason; events: number }>;
  let delivery: TurnDelivery;

  before(async function () {
    this.timeout(120_000);
    log = (await useStack()).server.deps.events;
  });

  beforeEach(() => {
    replays = [];
    delivery = new TurnDelivery(log, { replayed: (reason, events) => void replays.push({ reason, events }) });
  });

  /** A turn with `count` events in its log, as the worker writes them. */
  async function turnWith(count: number, sessionId = randomUUID()): Promise<{ sessionId: string; turnId: string; events: LoggedTurnEvent[] }> {
    const turnId = randomUUID();
    await log.append(sessionId, turnId, "stage", { stage: "generate", status: "started" });
    for (let n = 1; n < count; n++) await log.append(sessionId, turnId, "stage", { stage: "generate", status: n % 2 ? "completed" : "started" });
    await log.flushed();
    return { sessionId, turnId, events: await log.read(turnId, 1) };
  }

  it("delivers live events once each, skipping one the socket already has", async () => {
    const { events } = await turnWith(3);
    const { socket, received } = recorder();
    for (const { event, payload } of [events[0]!, events[1]!, events[1]!, events[0]!, events[2]!]) await delivery.deliver(socket, event, payload);
    expect(received.map((r) => r.seq)).to.deep.equal([1, 2, 3]);
    expect(replays).to.deep.equal([]);
  });

  it("emits the next live event before deliver returns when nothing is queued for the socket, and queues one behind a gap fill", async () => {
    const { events } = await turnWith(4);
    const { socket, received } = recorder();
    delivery.deliver(socket, events[0]!.event, events[0]!.payload);
    expect(
      received.map((r) => r.seq),
      "emitted in the tick the message arrived",
    ).to.deep.equal([1]);
    const filling = delivery.deliver(socket, events[2]!.event, events[2]!.payload);
    const behind = delivery.deliver(socket, events[3]!.event, events[3]!.payload);
    expect(filling, "a gap is filled in the socket's queue").to.be.instanceOf(Promise);
    expect(behind, "an event after a queued one waits its turn").to.be.instanceOf(Promise);
    expect(received.map((r) => r.seq)).to.deep.equal([1]);
    await Promise.all([filling, behind]);
    expect(received.map((r) => r.seq)).to.deep.equal([1, 2, 3, 4]);
  });

  it("fills a gap from the log before the live event that revealed it", async () => {
    const { events } = await turnWith(4);
    const { socket, received } = recorder();
    await delivery.deliver(socket, events[0]!.event, events[0]!.payload);
    await delivery.deliver(socket, events[3]!.event, events[3]!.payload);
    expect(received.map((r) => r.seq)).to.deep.equal([1, 2, 3, 4]);
    expect(replays).to.deep.equal([{ reason: "gap", events: 2 }]);
  });

  it("replays a join from the start and a resume after the last seq seen; live events already replayed are not sent again", async () => {
    const { sessionId, turnId, events } = await turnWith(3);
    const joined = recorder();
    expect(await delivery.replay(joined.socket, sessionId, turnId, 0)).to.equal(3);
    for (const { event, payload } of events) await delivery.deliver(joined.socket, event, payload);
    expect(joined.received.map((r) => r.seq)).to.deep.equal([1, 2, 3]);

    const resumed = recorder();
    expect(await delivery.replay(resumed.socket, sessionId, turnId, 2)).to.equal(1);
    expect(resumed.received.map((r) => r.seq)).to.deep.equal([3]);
    expect(replays).to.deep.equal([
      { reason: "join", events: 3 },
      { reason: "resume", events: 1 },
    ]);
  });

  it("replays only the joined session's events, and nothing to a socket that has disconnected", async () => {
    const { turnId } = await turnWith(2);
    const other = recorder();
    expect(await delivery.replay(other.socket, randomUUID(), turnId, 0)).to.equal(0);
    expect(other.received).to.deep.equal([]);

    const { sessionId, turnId: second, events } = await turnWith(2);
    const gone = recorder();
    (gone.socket as unknown as { connected: boolean }).connected = false;
    await delivery.replay(gone.socket, sessionId, second, 0);
    await delivery.deliver(gone.socket, events[0]!.event, events[0]!.payload);
    expect(gone.received).to.deep.equal([]);
  });

  /** The real log, whose reads fail the first `failures` times, as the server's connection does while Redis fails over. */
  function failingAtFirst(failures: number): { log: TurnEventLog; reads: () => number } {
    let reads = 0;
    const flaky = Object.create(log) as TurnEventLog;
    flaky.readStream = (...args: Parameters<TurnEventLog["readStream"]>) => {
      reads += 1;
      return reads <= failures ? Promise.reject(new Error("Reached the max retries per request limit")) : log.readStream(...args);
    };
    return { log: flaky, reads: () => reads };
  }

  it("catches a socket up after the feed was cut, reading the log again while it does not answer", async () => {
    const { sessionId, events } = await turnWith(4);
    const { socket, received } = recorder();
    const flaky = failingAtFirst(2);
    const patient = new TurnDelivery(flaky.log, undefined, [10, 10, 10]);
    // The socket had the first event live, then the feed was cut and the turn's last three went out meanwhile.
    await patient.deliver(socket, events[0]!.event, events[0]!.payload);
    expect(await patient.catchUp(socket)).to.equal(3);
    expect(flaky.reads()).to.equal(3, "two failed reads, then one that answered");
    expect(received.map((r) => r.seq)).to.deep.equal([1, 2, 3, 4]);
    expect(received.every((r) => r.sessionId === sessionId)).to.equal(true);
  });

  it("fills a gap whose first read failed once the log answers, and gives up once the delays are spent", async () => {
    const { events } = await turnWith(4);
    const { socket, received } = recorder();
    const patient = new TurnDelivery(failingAtFirst(1).log, undefined, [10]);
    await patient.deliver(socket, events[0]!.event, events[0]!.payload);
    const failed = await patient.deliver(socket, events[3]!.event, events[3]!.payload)?.catch((error: Error) => error);
    expect(failed, "the live event that revealed the gap is not sent over it").to.be.instanceOf(Error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.map((r) => r.seq)).to.deep.equal([1, 2, 3, 4]);

    const never = recorder();
    const hopeless = new TurnDelivery(failingAtFirst(100).log, undefined, [10, 10]);
    await hopeless.deliver(never.socket, events[0]!.event, events[0]!.payload);
    const spent = await hopeless.catchUp(never.socket).catch((error: Error) => error);
    expect(spent).to.be.instanceOf(Error);
    expect(never.received.map((r) => r.seq)).to.deep.equal([1]);
  });

  it("keeps one cursor per log: an admin action's events and a turn's do not hide each other", async () => {
    const actionId = randomUUID();
    const userId = randomUUID();
    await log.appendAction(actionId, userId, "action_progress", { done: 0, failed: 0, total: 2 });
    await log.appendAction(actionId, userId, "action_progress", { done: 1, failed: 0, total: 2 });
    await log.flushed();
    const { events } = await turnWith(1);
    const { socket, received } = recorder();
    await delivery.deliver(socket, events[0]!.event, events[0]!.payload);
    expect(await delivery.replayAction(socket, actionId, 0)).to.equal(2);
    expect(await delivery.replayAction(socket, actionId, 0), "a second replay sends nothing new").to.equal(0);
    expect(received.map((r) => `${r.event}:${r.seq}`)).to.deep.equal(["stage:1", "action_progress:1", "action_progress:2"]);
  });
});
