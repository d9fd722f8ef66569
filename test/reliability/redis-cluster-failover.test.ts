/**
 * After a Redis Cluster failover every queue serves again within seconds (issue 30). The primary
 * holding the ingestion queue is SIGKILLed and, without waiting for its replica to take over, an
 * admin uploads a document: it is indexed, not left PENDING. Before the fix one run in two left it
 * PENDING for minutes: the ingest-extract Worker's blocking cluster client stayed `disconnecting`
 * with its BZPOPMIN parked (workers/blocking-client-watch.ts); and an upload whose enqueue fell
 * inside the failover got QUEUE_UNAVAILABLE with the row stored and nothing to queue it again
 * (workers/maintenance/unqueued-documents.ts). Then one job goes through each queue family — a
 * tutor turn, an admin turn, a summary refresh, a maintenance sweep — and every copy of every
 * queue takes a job. The bounds are liveness checks (a stuck queue waits forever), not speed goals.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { parseConfig } from "../../lib/config";
import { queueLayoutOf, queuePrefix } from "../../queues/layout";
import { startServer, type RunningServer } from "../../server/server";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { startClusterDeployment, type ClusterDeployment } from "../harness/redis-cluster";
import { api, login, upload, waitFor } from "../harness/client";
import { makeMarkdown } from "../support/document-fixtures";
import { stackSuite } from "../support/suite";
import { unique } from "../workers/admin/helpers";
import { askTutor } from "./helpers";
import { testEnv } from "../support/tunables";

/** A queue that serves again does so within seconds; one that is stuck never does. */
const LIVENESS_MS = 30_000;
/** An upload whose enqueue was refused waits for the sweep: 20 s of age, then its next 15 s run. */
const REQUEUED_MS = 60_000;

describe("Redis Cluster failover: every queue serves again", function () {
  const stack = stackSuite(this, { timeoutMs: 240_000 });
  let cluster: ClusterDeployment | undefined;
  let server: RunningServer | undefined;
  let workers: RunningWorkers | undefined;

  before(async function () {
    this.timeout(120_000);
    cluster = await startClusterDeployment();
    await cluster.ready();
    const config = parseConfig(testEnv({ ...process.env, REDIS_URL: "", REDIS_CLUSTER_NODES: cluster.nodes, QUEUE_SHARDS: "3" }));
    workers = await startWorkers(config, { skipEmbeddingCheck: true, llm: { retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } });
    server = await startServer(config, { port: 0, host: "127.0.0.1" });
  });

  after(async function () {
    this.timeout(120_000);
    await server?.close();
    await workers?.close();
    await cluster?.stop();
  });

  const jobSettles = (queue: ReturnType<RunningServer["deps"]["producer"]["queue"]>, id: string, states: string[], what: string) =>
    waitFor(async () => states.includes(await queue.getJobState(id)), LIVENESS_MS, what);

  it("indexes an upload made right after the primary holding ingestion dies, then serves every queue", async () => {
    const producer = server!.deps.producer;
    const admin = await login(server!.url, "admin@example.com");
    const doomed = await cluster!.primaryFor(`${queuePrefix(queueLayoutOf(server!.deps.config), "ingest-extract", 0)}:ingest-extract:meta`);
    process.kill(await cluster!.pidOf(doomed), "SIGKILL");

    // At once, inside the failover: accepted (202), or refused with the stored document named (503).
    const bytes = makeMarkdown([{ heading: "Returns", body: `Refunds are paid within fourteen days. ${unique()}` }]);
    const posted = await upload(server!.url, admin.token, { name: `failover-${unique()}.md`, bytes });
    const documentId = (posted.body.document_id ?? posted.body.error?.document_id) as string;
    expect(posted.status === 202 || posted.body.error?.code === "QUEUE_UNAVAILABLE", JSON.stringify(posted.body)).to.equal(true);
    expect(documentId, JSON.stringify(posted.body)).to.be.a("string");
    const document = await waitFor(
      async () => {
        const response = await api(server!.url, "GET", `/api/v1/documents/${documentId}`, { token: admin.token });
        return ["COMPLETED", "FAILED"].includes(response.body.status) ? response.body : undefined;
      },
      posted.status === 202 ? LIVENESS_MS : REQUEUED_MS,
      `the upload (answered ${posted.status}) to be indexed`,
    );
    expect(document.status, document.error).to.equal("COMPLETED");

    // A tutor turn, streamed and stored.
    const employee = await login(server!.url, "employee@example.com");
    const { sessionId, turnId } = await askTutor(server!.url, employee.token, `What is the refund policy? ${unique()}`);
    await waitFor(
      async () => {
        const messages = await api(server!.url, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token: employee.token });
        return messages.body.messages?.some((m: { role: string; turn_id: string }) => m.role === "assistant" && m.turn_id === turnId);
      },
      LIVENESS_MS,
      "the tutor's answer",
    );

    // An admin turn.
    const adminTurn = await api(server!.url, "POST", "/api/v1/chat/admin", { token: admin.token, body: { message: "How many courses do we have?" } });
    expect(adminTurn.status, JSON.stringify(adminTurn.body)).to.equal(202);
    await waitFor(
      async () => {
        const messages = await api(server!.url, "GET", `/api/v1/chat/sessions/${adminTurn.body.session_id}/messages`, { token: admin.token });
        return messages.body.messages?.some((m: { role: string; turn_id: string }) => m.role === "assistant" && m.turn_id === adminTurn.body.turn_id);
      },
      LIVENESS_MS,
      "the admin assistant's answer",
    );

    // A summary refresh and a maintenance sweep.
    await producer.enqueueSummary({ orgId: DEMO_IDS.orgId, sessionId, turnId }, 1);
    await jobSettles(producer.queue("chat-summarise"), `${sessionId}-summary-1`, ["completed"], "the summary job");
    const sweep = await producer.queue("maintenance").add("stuck-documents", { task: "stuck-documents" }, { jobId: `probe-${unique()}` });
    await jobSettles(producer.queue("maintenance"), sweep.id!, ["completed"], "the maintenance sweep");

    // Every copy of every queue takes a job: a malformed one, which its Worker fails at once without retrying.
    for (const { queue, shard } of producer.allCopies()) {
      const probe = await producer.queue(queue, shard).add(queue, { probe: true }, { jobId: `probe-${unique()}`, attempts: 1 });
      await jobSettles(producer.queue(queue, shard), probe.id!, ["failed"], `copy ${shard} of ${queue} to take a job`);
    }
  });
});
