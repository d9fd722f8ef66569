/**
 * Issue 10, part 7: one grep for a turn id follows the turn from HTTP to its last token. A real
 * server process and a real worker process (JSON logs on stdout, LOG_LEVEL=info) run one tutor
 * turn whose generation stream breaks once: the turn id is on the HTTP request line (with the
 * caller's X-Request-Id), on each tutor stage's lines with its job id, on the model client's
 * warning (written by a logger that knows nothing of jobs), and on the gateway's delivery line.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import type { Worker } from "bullmq";

const TUTOR_QUEUES = ["tutor-generate"];
const ANSWER = "Returns are accepted within thirty days of purchase when the item is unused and you still have the receipt.";

type LogLine = Record<string, any> & { msg: string; component?: string };

function parseLines(raw: string[]): LogLine[] {
  return raw.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/** How often `key` appears as a JSON key in one raw line (a child binding plus a context field would make 2). */
const keyCount = (line: string, key: string): number => line.split(`"${key}":`).length - 1;

describe("logs that follow a turn", function () {
  this.timeout(120_000);
  let stack: Stack;
  const children: ManagedChild[] = [];
  let paused: Worker[] = [];

  before(async function () {
    stack = await useStack();
  });
  after(async () => {
    for (const child of children.splice(0)) await child.stop(5_000).catch(() => undefined);
    for (const worker of paused) worker.resume();
    stack.llm.reset();
  });

  it("carry the request, session, turn and job ids from the POST to the turn's last event", async () => {
    const serverLines: string[] = [];
    const workerLines: string[] = [];
    const env = { ...process.env, ...stack.env, LOG_LEVEL: "info" };
    const port = await findFreePort();
    const [server, worker] = await Promise.all([
      spawnUntilReady(process.execPath, ["--import", "tsx", "server/main.ts"], {
        name: "server",
        readyPattern: /^READY server (\S+)/,
        env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
        onOutput: (line) => serverLines.push(line),
      }),
      spawnUntilReady(process.execPath, ["--import", "tsx", "workers/main.ts"], {
        name: "worker",
        readyPattern: /^READY workers/,
        env: { ...env, WORKER_QUEUES: TUTOR_QUEUES.join(",") },
        onOutput: (line) => workerLines.push(line),
      }),
    ]);
    children.push(server.child, worker.child);
    // The stack's own tutor workers step aside so every stage of this turn runs in the child.
    paused = stack.workers.workers.filter((w) => TUTOR_QUEUES.includes(w.name));
    await Promise.all(paused.map((w) => w.pause()));

    const baseUrl = server.match[1]!;
    const { token } = await login(baseUrl, "employee@example.com");
    const socket = await connect(baseUrl, token);
    try {
      const received = recordEvents(socket);
      // The manual's sources settle the route (no classification call): the first stream is cut, the retry's completes.
      stack.llm.enqueueReply({ content: ANSWER, cutAfterTokens: 3 }, { content: ANSWER });
      const requestId = `trail-${randomUUID()}`;
      const posted = await api(baseUrl, "POST", "/api/v1/chat", {
        token,
        body: { message: "How many days do I have to return an item for a refund?" },
        headers: { "x-request-id": requestId },
      });
      expect(posted.status).to.equal(202);
      expect(posted.headers.get("x-request-id")).to.equal(requestId);
      const { session_id: sessionId, turn_id: turnId } = posted.body as { session_id: string; turn_id: string };
      expect(await join(socket, { sessionId })).to.include({ ok: true });
      const events = await waitForTurnEnd(received, turnId, 60_000);
      expect(events.map((e) => e.event)).to.include("done");

      // Logs trail the events a little: wait for the last stage's line and the delivery line.
      const grep = (lines: string[]) => parseLines(lines.filter((line) => line.includes(turnId)));
      await waitFor(
        () => grep(workerLines).some((l) => l.queue === "tutor-generate" && l.msg === "job completed"),
        10_000,
        "tutor-generate's job completed line",
      );
      await waitFor(() => grep(serverLines).some((l) => l.msg.startsWith("turn ended")), 10_000, "the gateway's turn ended line");
      const fromServer = grep(serverLines);
      const fromWorker = grep(workerLines);

      const request = fromServer.find((l) => l.msg === "request" && l.path === "/api/v1/chat");
      expect(request, serverLines.join("\n")).to.include({ requestId, sessionId, turnId, status: 202, component: "server" });

      const joined = parseLines(serverLines).find((l) => l.msg === "socket joined session" && l.sessionId === sessionId);
      expect(joined, "the gateway logs the join").to.include({ component: "gateway", turnId });
      expect(fromServer.find((l) => l.msg.startsWith("turn ended"))).to.include({ component: "gateway", sessionId, event: "done", localSockets: 1 });

      // The turn is one job; each of its stages has its own started and completed lines, with the job's ids.
      const jobId = `${turnId}-generate`;
      expect(fromWorker.find((l) => l.queue === "tutor-generate" && l.msg === "job completed")).to.include({ sessionId, turnId, jobId, component: "worker" });
      for (const stage of ["classify", "retrieve", "generate"]) {
        for (const msg of ["stage started", "stage completed"]) {
          const line = fromWorker.find((l) => l.stage === stage && l.msg === msg);
          expect(line, `${stage} ${msg}: ${workerLines.join("\n")}`).to.include({ queue: "tutor-generate", sessionId, turnId, jobId, component: "worker" });
        }
      }
      expect(
        fromWorker.find((l) => l.msg === "stage failed"),
        "the failed attempt names its stage",
      ).to.include({ stage: "generate", jobId, willRetry: true });
      // The failed generation attempt: the handler's line, and the model client's own warning.
      expect(fromWorker.find((l) => l.msg === "job attempt failed")).to.include({ queue: "tutor-generate", sessionId });
      const modelWarning = fromWorker.find((l) => l.msg === "model call failed");
      expect(modelWarning, "the LLM client's warning carries the job's ids").to.include({ queue: "tutor-generate", sessionId, jobId: `${turnId}-generate` });

      // Every worker line of this turn's jobs names the turn, and no id is written twice in one line.
      const jobLines = workerLines.filter((line) => line.includes(`"jobId":"${turnId}-`));
      // The three stages' start and end lines at least, and the failed attempt's.
      expect(jobLines.length).to.be.at.least(5);
      for (const line of jobLines) {
        expect(line).to.include(`"turnId":"${turnId}"`).and.include(`"sessionId":"${sessionId}"`);
        for (const key of ["jobId", "turnId", "sessionId", "queue"]) expect(keyCount(line, key), `${key} in ${line}`).to.equal(1);
      }
    } finally {
      socket.disconnect();
    }
  });
});
