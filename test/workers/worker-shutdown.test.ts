/**
 * SIGTERM to a busy worker process: it stops taking jobs, lets a short job finish within
 * WORKER_DRAIN_MS, and hands a long one back at the end of it, so another worker continues
 * the turn at once (not after the lock expires: lock 10 s + stalled checks every 5 s). Either
 * way the client gets `done` and one stored answer equal to the final text.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { expect } from "chai";
import { api, join, waitFor, waitForTurnEnd } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { spawnReadyWorker, stackWorker } from "../reliability/helpers";
import { freshEmployee, removeFreshEmployees, scriptedResponder, type Learner } from "./tutor/helpers";

const LONG_ANSWER = Array.from({ length: 40 }, (_, i) => `Step ${i + 1} of the returns procedure is written down here.`).join(" ");
const SHORT_ANSWER = "Returns are accepted within 30 days with a receipt.";

describe("a worker stopped with SIGTERM", function () {
  this.timeout(120_000);
  let stack: Stack;
  const children: ChildProcess[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
    stack.llm.setResponder(null);
    stack.llm.reset();
    await removeFreshEmployees(stack);
  });

  /** A worker process serving only tutor-generate on the default lock settings; resolves once it is taking jobs. */
  async function startWorker(settings: Record<string, string> = {}): Promise<ChildProcess> {
    const defaults = { WORKER_LOCK_DURATION_MS: undefined, WORKER_STALLED_INTERVAL_MS: undefined, WORKER_MAX_STALLED_COUNT: undefined };
    return spawnReadyWorker(stack, { ...defaults, WORKER_QUEUES: "tutor-generate:1", ...settings }, children);
  }

  async function postTurn(learner: Learner): Promise<{ sessionId: string; turnId: string }> {
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: "Walk me through the returns procedure" } });
    expect(posted.status).to.equal(202);
    expect(await join(learner.socket, { sessionId: posted.body.session_id })).to.include({ ok: true });
    return { sessionId: posted.body.session_id, turnId: posted.body.turn_id };
  }

  async function storedAnswers(turnId: string): Promise<Array<{ content: string }>> {
    return stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" });
  }

  it("hands a long generation back at the end of its drain time; another worker finishes it at once", async () => {
    const inProcess = stackWorker(stack, "tutor-generate");
    await inProcess.pause();
    try {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => LONG_ANSWER }));
      stack.llm.setTokenDelay(25);
      const learner = await freshEmployee(stack);
      const stopping = await startWorker({ WORKER_DRAIN_MS: "1000" });
      const { turnId } = await postTurn(learner);
      const ofTurn = () => learner.events.filter((e) => e.payload?.turnId === turnId);
      await waitFor(() => ofTurn().filter((e) => e.event === "token").length >= 5, 60_000, "first tokens");
      await startWorker();

      const exited = once(stopping, "exit");
      stopping.kill("SIGTERM");
      const signalledAt = Date.now();
      await waitFor(() => ofTurn().some((e) => e.event === "stage" && e.payload.status === "restart"), 30_000, "restart on the other worker");
      const continuedAfterMs = Date.now() - signalledAt;
      const [code] = await exited;
      const exitedAfterMs = Date.now() - signalledAt;

      const events = await waitForTurnEnd(learner.events, turnId, 90_000);
      expect(events.map((e) => e.event)).to.include("done");
      expect(events.filter((e) => e.event === "error")).to.have.length(0);
      const lastRestart = events.map((e) => e.event === "stage" && e.payload.status === "restart").lastIndexOf(true);
      const finalText = events
        .slice(lastRestart)
        .filter((e) => e.event === "token")
        .map((e) => e.payload.content)
        .join("");
      // Tokens from the stopped worker after the hand-back would break this equality.
      expect(finalText).to.equal(LONG_ANSWER);
      const stored = await storedAnswers(turnId);
      expect(stored).to.have.length(1);
      expect(stored[0]!.content).to.equal(finalText);
      expect(code, "the stopped worker exits cleanly").to.equal(0);
      // The lock-expiry path would take 10–20 s; the hand-back comes right after the 1 s drain.
      expect(continuedAfterMs).to.be.below(8_000, `continued after ${continuedAfterMs} ms`);
      expect(exitedAfterMs).to.be.below(8_000, `exited after ${exitedAfterMs} ms`);
      if (process.env.REPORT_TIMINGS)
        process.stdout.write(`      hand-back: continued elsewhere ${continuedAfterMs} ms after SIGTERM, stopped worker exited after ${exitedAfterMs} ms\n`);
    } finally {
      inProcess.resume();
    }
  });

  it("lets a job that ends within the drain time finish on the stopping worker", async () => {
    const inProcess = stackWorker(stack, "tutor-generate");
    await inProcess.pause();
    try {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => SHORT_ANSWER }));
      stack.llm.setTokenDelay(150);
      const learner = await freshEmployee(stack);
      const stopping = await startWorker({ WORKER_DRAIN_MS: "20000", SHUTDOWN_GRACE_MS: "25000" });
      const { turnId } = await postTurn(learner);
      await waitFor(() => learner.events.some((e) => e.payload?.turnId === turnId && e.event === "token"), 60_000, "first token");

      const exited = once(stopping, "exit");
      stopping.kill("SIGTERM");
      const events = await waitForTurnEnd(learner.events, turnId, 30_000);
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(events.map((e) => e.event)).to.include("done");
      expect(
        events.some((e) => e.event === "stage" && e.payload.status === "restart"),
        "finished where it started",
      ).to.equal(false);
      const stored = await storedAnswers(turnId);
      expect(stored).to.have.length(1);
      expect(stored[0]!.content).to.equal(SHORT_ANSWER);
    } finally {
      inProcess.resume();
    }
  });
});
