/**
 * Redis behind Sentinel loses its master mid-answer: a real master, replica and three
 * redis-sentinel processes (quorum 2, a master silent for 1 s is down), a server and workers
 * that know only the sentinels. The master is SIGKILLed while a turn streams; the sentinels
 * promote the replica, every connection (queues, workers, the event log, pub/sub, the Socket.IO
 * adapter) follows it, and the turn ends exactly once with the text that is stored, every seq
 * once and in order. A turn asked after the failover works too.
 */
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { startSentinelDeployment, type SentinelDeployment } from "../harness/redis-sentinel";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import type { ReceivedEvent } from "../harness/client";
import { stackSuite } from "../support/suite";
import { generationRequestsFor } from "../workers/tutor/helpers";
import { expectEndedOnce, expectNextTurnAnswered, finalText, streamLongAnswer } from "./helpers";
import { testEnv } from "../support/tunables";
import { streamKey } from "../../queues/events/stream-keys";
import { Redis } from "ioredis";
import { createRedis, redisOptions, redisTargetOf } from "../../queues/connection";
import { getLogger } from "../../lib/logger";

const LONG_ANSWER = Array.from({ length: 30 }, (_, i) => `Point ${i + 1} of the expense policy is explained here.`).join(" ");

/** Every seq of a turn's events, in arrival order: a failover must neither skip nor repeat one. */
function seqsOf(events: ReceivedEvent[]): number[] {
  return events.map((e) => e.payload.seq as number);
}

describe("Redis behind Sentinel: the master SIGKILLed mid-answer", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  let deployment: SentinelDeployment | undefined;
  let server: RunningServer | undefined;
  let workers: RunningWorkers | undefined;
  let target: ReturnType<typeof redisTargetOf>;

  before(async function () {
    this.timeout(120_000);
    deployment = await startSentinelDeployment();
    await deployment.ready();
    // No REDIS_URL at all: the processes find Redis through the sentinels only.
    const config = parseConfig(testEnv({ ...process.env, REDIS_URL: "", REDIS_SENTINELS: deployment.sentinels, REDIS_SENTINEL_NAME: deployment.name }));
    target = redisTargetOf(config);
    workers = await startWorkers(config, { skipEmbeddingCheck: true, llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    server = await startServer(config, { port: 0, host: "127.0.0.1" });
  });

  after(async () => {
    await server?.close().catch(() => undefined);
    await workers?.close().catch(() => undefined);
    await deployment?.stop();
  });

  /** On a stuck turn: what was stored, its job's state and its event log on the master now, so a failure says which part stopped. */
  async function whereTheTurnStands(turnId: string, sessionId: string): Promise<string> {
    const facts: string[] = [];
    const note = async (what: string, read: () => Promise<unknown>): Promise<void> => {
      const value = await read().catch((error: Error) => `unreadable (${error.message})`);
      facts.push(`${what}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    };
    await note("master", () => deployment!.masterPort());
    await note("stored", async () =>
      (await workers!.deps.db("chat_messages").where({ turn_id: turnId })).map((row) => ({ role: row.role, status: row.status, chars: row.content?.length })),
    );
    await note("job", () => workers!.deps.producer.turnFinalStageState("tutor", { turnId, sessionId }));
    await note("event log length", () => workers!.deps.redis.xlen(streamKey(false, { kind: "turn", id: turnId })));
    return facts.join("\n");
  }

  it("ends the turn once, text equal to what is stored, no seq skipped or repeated, and answers the next turn", async () => {
    const question = "Explain every point of the expense policy, please.";
    const turn = await streamLongAnswer(stack, server!.url, question, LONG_ANSWER);
    const { received, turnId } = turn;
    try {
      const oldMaster = await deployment!.masterPort();
      process.kill(deployment!.pidOf(oldMaster), "SIGKILL");

      const { events, ofTurn } = await expectEndedOnce(received, turnId).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await whereTheTurnStands(turnId, turn.sessionId)}`);
      });
      expect(await deployment!.masterPort(), "the sentinels promoted the replica").to.not.equal(oldMaster);
      const seqs = seqsOf(ofTurn);
      expect(seqs, "every seq once, in order").to.deep.equal(Array.from({ length: seqs.length }, (_, i) => i + 1));
      expect(finalText(events)).to.equal(LONG_ANSWER);

      const rows = await workers!.deps.db("chat_messages").where({ turn_id: turnId }).orderBy("created_at");
      expect(rows.map((row) => row.role)).to.deep.equal(["user", "assistant"], "one question and one answer stored");
      expect(rows[1]!.status).to.equal("complete");
      expect(rows[1]!.content).to.equal(LONG_ANSWER);
      expect(generationRequestsFor(stack, question)).to.have.length(1, "the model was asked once");

      // After the failover: a new turn in the same session goes through the promoted master.
      await expectNextTurnAnswered(stack, server!.url, turn);
    } finally {
      turn.socket.disconnect();
      stack.llm.setTokenDelay(0);
    }
  });
  /**
   * The race a whole run met: the master's death drops a connection, and the sentinels' `+switch-master` reaches its
   * failover detector while the reconnect is still asking them for the master. ioredis then stops the connector
   * mid-connect and ends the connection for good. Here the detector's call is made at that moment by hand.
   */
  it("keeps a connection whose failover was announced mid-reconnect: ioredis alone ends it for good", async () => {
    /** Drops the connection, makes the detector's call once the reconnect is asking the sentinels, and says how it came out. */
    const cutMidReconnect = async (redis: Redis): Promise<{ outcome: "end" | "ready"; meanwhile: unknown }> => {
      await redis.ping();
      const internals = redis as unknown as { stream: { destroy(): void }; connector: { disconnect(): void } };
      redis.once("connecting", () => internals.connector.disconnect());
      internals.stream.destroy();
      // Sent while the connection is down: it waits for the reconnect in the offline queue.
      const meanwhile = redis.set("sentinel-cut-probe", "kept").catch((error: Error) => error.message);
      const outcome = await new Promise<"end" | "ready">((resolve) => {
        redis.once("end", () => resolve("end"));
        redis.once("ready", () => resolve("ready"));
      });
      return { outcome, meanwhile: await meanwhile };
    };

    const bare = new Redis(redisOptions(target, "worker"));
    bare.on("error", () => undefined);
    try {
      expect(await cutMidReconnect(bare)).to.deep.equal({ outcome: "end", meanwhile: "Connection is closed." });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(bare.status, "ioredis alone leaves it ended (the fault createRedis works around)").to.equal("end");
    } finally {
      bare.disconnect();
    }

    const ours = createRedis(target, "worker", getLogger());
    try {
      expect(await cutMidReconnect(ours), "reconnected, never ended; the command sent meanwhile answered").to.deep.equal({ outcome: "ready", meanwhile: "OK" });
      expect(await ours.get("sentinel-cut-probe")).to.equal("kept");
      // BullMQ's blocking connections are duplicates: they are kept too.
      const copy = ours.duplicate();
      try {
        expect(await cutMidReconnect(copy), "a duplicate, as BullMQ makes").to.deep.equal({ outcome: "ready", meanwhile: "OK" });
      } finally {
        copy.disconnect();
      }
      // Our own close stays closed, and takes the failover detector's sentinel connections with it (after `quit`, which
      // ioredis alone leaves them to).
      const detector = (ours as unknown as { connector: { failoverDetector?: { isDisconnected: boolean } } }).connector;
      await ours.quit();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(ours.status).to.equal("end");
      expect(detector.failoverDetector?.isDisconnected, "the failover detector stopped").to.equal(true);
    } finally {
      ours.disconnect();
    }
  });
});
