/**
 * A worker SIGKILLed mid-generation, twice in a row, on the default lock settings: another
 * worker continues the turn each time (announcing `restart` so the client drops the partial
 * text), the client gets `done`, and exactly one answer is stored, equal to the final text. The
 * turn is one job: the stages before generation are not run again (their results are kept).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { expect } from "chai";
import { api, join, waitFor, waitForTurnEnd } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { stackWorker } from "./helpers";
import { CLASSIFY_MARKER, chatRequestsContaining, freshEmployee, promptOf, removeFreshEmployees, scriptedResponder } from "../workers/tutor/helpers";

const ANSWER = Array.from({ length: 60 }, (_, i) => `Step ${i + 1} of the returns procedure is written down here.`).join(" ");

describe("a worker killed mid-generation", function () {
  this.timeout(180_000);
  let stack: Stack;
  const children: ChildProcess[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    stack.llm.setResponder(null);
    stack.llm.reset();
    await removeFreshEmployees(stack);
  });

  it("twice in a row still ends with done and one stored answer equal to the final text, each recovery within 30 s", async () => {
    const inProcess = stackWorker(stack, "tutor-generate");
    await inProcess.pause();
    // Default lock, stalled interval and stalled count: what an operator gets.
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...stack.env,
      WORKER_QUEUES: "tutor-generate:1",
      LOG_LEVEL: process.env.CRASH_TEST_LOG ? "info" : "silent",
    };
    for (const name of ["WORKER_LOCK_DURATION_MS", "WORKER_STALLED_INTERVAL_MS", "WORKER_MAX_STALLED_COUNT"]) delete env[name];
    const startWorker = () => {
      const child = spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], {
        env,
        stdio: ["ignore", process.env.CRASH_TEST_LOG ? "inherit" : "ignore", process.env.CRASH_TEST_LOG ? "inherit" : "ignore"],
      });
      children.push(child);
      return child;
    };
    try {
      stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
      stack.llm.setTokenDelay(40);
      const learner = await freshEmployee(stack);
      const question = "Walk me through the returns procedure";
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message: question } });
      expect(posted.status).to.equal(202);
      const { session_id: sessionId, turn_id: turnId } = posted.body;
      expect(await join(learner.socket, { sessionId })).to.include({ ok: true });
      const ofTurn = () => learner.events.filter((e) => e.payload?.turnId === turnId);
      const tokensSince = (index: number) =>
        ofTurn()
          .slice(index)
          .filter((e) => e.event === "token").length;
      const restarts = () => ofTurn().filter((e) => e.event === "stage" && e.payload.status === "restart").length;

      const recoveries: number[] = [];
      let worker = startWorker();
      for (let kill = 1; kill <= 2; kill++) {
        const from = ofTurn().length;
        await waitFor(() => tokensSince(from) >= 5, 60_000, `tokens before kill ${kill}`);
        worker.kill("SIGKILL");
        const killedAt = Date.now();
        worker = startWorker();
        await waitFor(() => restarts() >= kill, 60_000, `restart after kill ${kill}`);
        recoveries.push(Date.now() - killedAt);
      }
      const events = await waitForTurnEnd(learner.events, turnId, 90_000);
      const names = events.map((e) => e.event);
      expect(names).to.include("done");
      expect(events.filter((e) => e.event === "error")).to.have.length(0);

      const lastRestart = events.map((e) => e.event === "stage" && e.payload.status === "restart").lastIndexOf(true);
      const finalText = events
        .slice(lastRestart)
        .filter((e) => e.event === "token")
        .map((e) => e.payload.content)
        .join("");
      const stored = await stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" });
      expect(stored).to.have.length(1);
      expect(stored[0].content).to.equal(finalText);
      expect(finalText).to.contain("Step 60");
      for (const ms of recoveries) expect(ms).to.be.below(30_000, `recoveries took ${recoveries.join(", ")} ms`);
      // Classified and retrieved once, by the first worker: the redelivered job resumed at generation.
      const stages = events.filter((e) => e.event === "stage").map((e) => `${e.payload.stage}:${e.payload.status}`);
      expect(stages.filter((s) => s === "classify:started" || s === "retrieve:started")).to.deep.equal(["classify:started", "retrieve:started"]);
      expect(events.filter((e) => e.event === "grounding")).to.have.length(1);
      expect(chatRequestsContaining(stack, CLASSIFY_MARKER).filter((r) => promptOf(r).includes(question))).to.have.length(1);
    } finally {
      inProcess.resume();
    }
  });
});
