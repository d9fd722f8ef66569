/**
 * skillnet-chat on a Redis Cluster: three primaries and three replicas from Debian's
 * redis-server (scripts/harness/redis-cluster.ts), a server and workers that know only
 * REDIS_CLUSTER_NODES, with QUEUE_SHARDS copies of the tutor and admin queues. A tutor turn runs
 * on it end to end (every multi-key script in one slot, events over sharded pub/sub).
 */
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { startClusterDeployment, type ClusterDeployment } from "../../scripts/harness/redis-cluster";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { connect, join, login, recordEvents, waitForTurnEnd } from "../support/client";
import { stackSuite } from "../support/suite";
import { scriptedResponder } from "../tutor/helpers";
import { askTutor, finalErrors, finalText } from "./helpers";

describe("Redis Cluster: 3 primaries + 3 replicas, QUEUE_SHARDS=6", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  let cluster: ClusterDeployment | undefined;
  let server: RunningServer | undefined;
  let workers: RunningWorkers | undefined;

  before(async function () {
    this.timeout(120_000);
    cluster = await startClusterDeployment();
    await cluster.ready();
    // No REDIS_URL at all: the processes find Redis through the cluster's nodes only.
    const config = parseConfig({ ...process.env, REDIS_URL: "", REDIS_CLUSTER_NODES: cluster.nodes, QUEUE_SHARDS: "6" });
    workers = await startWorkers(config, { skipEmbeddingCheck: true, llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    server = await startServer(config, { port: 0, host: "127.0.0.1" });
  });

  after(async () => {
    await server?.close().catch(() => undefined);
    await workers?.close().catch(() => undefined);
    await cluster?.stop();
  });

  const ask = (token: string, question: string, sessionId?: string) => askTutor(server!.url, token, question, sessionId);

  it("answers a tutor turn, streamed over sharded pub/sub, text equal to what is stored", async () => {
    const answer = "The expense policy asks for receipts within thirty days.";
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => answer }));
    const { token } = await login(server!.url, "employee@example.com");
    const socket = await connect(server!.url, token);
    const received = recordEvents(socket);
    try {
      const { sessionId, turnId } = await ask(token, "What does the expense policy say about receipts?");
      expect(await join(socket, { sessionId })).to.include({ ok: true });
      const events = await waitForTurnEnd(received, turnId, 60_000);
      expect(events.filter((e) => e.event === "done")).to.have.length(1);
      expect(finalErrors(events)).to.have.length(0);
      expect(finalText(events)).to.equal(answer);
      const stored = await workers!.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" }).first();
      expect(stored?.content).to.equal(answer);
    } finally {
      socket.disconnect();
    }
  });
});
