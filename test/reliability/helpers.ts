/**
 * Helpers of the reliability suites: an extra set of workers in this process with its own
 * settings (short timeouts, a database behind a switch), and a turn's events and stored rows.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { ModelCooldowns } from "../../workers/llm/cooldowns";
import type { Socket } from "socket.io-client";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd, type ReceivedEvent } from "../harness/client";
import type { Stack } from "../support/stack";
import { scriptedResponder } from "../workers/tutor/helpers";
import { testEnv } from "../support/tunables";

/** Workers with `overrides` on top of the stack's environment; their own model cooldowns, so a tripped model stays local. */
export function startOwnWorkers(overrides: Record<string, string>): Promise<RunningWorkers> {
  const config = parseConfig(testEnv({ ...process.env, ...overrides }));
  return startWorkers(config, { skipEmbeddingCheck: true, llm: { retry: { attempts: 2, baseDelayMs: 50, maxDelayMs: 200 }, cooldowns: new ModelCooldowns() } });
}

/**
 * A worker process (workers/main.ts) on the stack's environment plus `env`, added to `children`
 * so the test can kill what it started; resolves once the process is taking jobs.
 */
export async function spawnReadyWorker(stack: Stack, env: Record<string, string | undefined>, children: ChildProcess[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], {
    env: testEnv({ ...process.env, ...stack.env, ...env }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  await waitFor(() => output.includes("READY workers") || child.exitCode !== null, 60_000, "worker READY");
  expect(child.exitCode, "worker exited before it was ready").to.equal(null);
  return child;
}

/** What a test does with the stack's own workers of one queue. */
export interface StackWorkers {
  pause(): Promise<void>;
  resume(): void;
}

/**
 * The stack's own workers for a queue (its normal slots and, on a fair queue, its reserved ones:
 * workers/fair-reserve.ts), to pause together while a test's workers take that queue.
 */
export function stackWorker(stack: Stack, queue: string): StackWorkers {
  const workers = stack.workers.workers.filter((candidate) => candidate.name === queue);
  if (workers.length === 0) throw new Error(`the stack runs no ${queue} worker`);
  return {
    pause: async () => void (await Promise.all(workers.map((worker) => worker.pause()))),
    resume: () => workers.forEach((worker) => worker.resume()),
  };
}

export function eventsOfTurn(received: ReceivedEvent[], turnId: string): ReceivedEvent[] {
  return received.filter((e) => e.payload?.turnId === turnId);
}

/** The text a client shows at the end: the tokens after the last `restart`. */
export function finalText(events: ReceivedEvent[]): string {
  const lastRestart = events.map((e) => e.event === "stage" && e.payload.status === "restart").lastIndexOf(true);
  return events
    .slice(lastRestart + 1)
    .filter((e) => e.event === "token")
    .map((e) => e.payload.content)
    .join("");
}

export async function assistantRows(
  stack: Stack,
  turnId: string,
): Promise<Array<{ id: string; content: string; status: string; metadata: Record<string, any> }>> {
  return stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" });
}

/** Final errors: those that are not a "retrying" notice. */
export function finalErrors(events: ReceivedEvent[]): ReceivedEvent[] {
  return events.filter((e) => e.event === "error" && !e.payload.willRetry);
}

/** Posts a tutor question (into `sessionId` when given); expects the 202 and returns the session and turn. */
export async function askTutor(baseUrl: string, token: string, question: string, sessionId?: string): Promise<{ sessionId: string; turnId: string }> {
  const posted = await api(baseUrl, "POST", "/api/v1/chat", { token, body: { message: question, ...(sessionId ? { session_id: sessionId } : {}) } });
  expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
  return { sessionId: posted.body.session_id, turnId: posted.body.turn_id };
}

function askOnce(serverUrl: string, turn: StreamingTurn) {
  return api(serverUrl, "POST", "/api/v1/chat", { token: turn.token, body: { message: "And what about travel?", session_id: turn.sessionId } });
}

/** A long answer under way on an employee's socket, for a failover suite to break something mid-answer. */
export interface StreamingTurn {
  token: string;
  socket: Socket;
  received: ReceivedEvent[];
  sessionId: string;
  turnId: string;
}

/**
 * Asks `question` as the demo employee with the model streaming `answer` slowly (25 ms a token),
 * and resolves once three of its tokens reached the socket. The caller disconnects the socket and
 * resets the model's token delay when done.
 */
export async function streamLongAnswer(stack: Stack, serverUrl: string, question: string, answer: string): Promise<StreamingTurn> {
  stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => answer }));
  stack.llm.setTokenDelay(25);
  const { token } = await login(serverUrl, "employee@example.com");
  const socket = await connect(serverUrl, token);
  const received = recordEvents(socket);
  try {
    const { sessionId, turnId } = await askTutor(serverUrl, token, question);
    expect(await join(socket, { sessionId })).to.include({ ok: true });
    await waitFor(() => eventsOfTurn(received, turnId).filter((e) => e.event === "token").length >= 3, 30_000, "the answer to stream");
    return { token, socket, received, sessionId, turnId };
  } catch (error) {
    socket.disconnect();
    throw error;
  }
}

/**
 * Waits for the turn's end, then a second more for a second ending that must not come; expects one
 * `done` and no final error. Returns the events up to the end and every event of the turn.
 */
export async function expectEndedOnce(received: ReceivedEvent[], turnId: string): Promise<{ events: ReceivedEvent[]; ofTurn: ReceivedEvent[] }> {
  const events = await waitForTurnEnd(received, turnId, 90_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const ofTurn = eventsOfTurn(received, turnId);
  expect(
    ofTurn.filter((e) => e.event === "done"),
    "one done",
  ).to.have.length(1);
  expect(finalErrors(ofTurn), "no final error").to.have.length(0);
  return { events, ofTurn };
}

/** After a failover: the next turn of the session, with the model at full speed again, ends with one `done` and no final error. */
export async function expectNextTurnAnswered(stack: Stack, serverUrl: string, turn: StreamingTurn): Promise<void> {
  stack.llm.setTokenDelay(0);
  // Right after a failover the server may still be reconnecting: it answers 503 SERVICE_UNAVAILABLE
  // ("nothing was changed … retry shortly"), and a client asks again. The next turn must be taken within 15 s.
  const deadline = Date.now() + 15_000;
  let posted = await askOnce(serverUrl, turn);
  while (posted.status === 503 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    posted = await askOnce(serverUrl, turn);
  }
  expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
  const next = { sessionId: posted.body.session_id as string, turnId: posted.body.turn_id as string };
  const nextEvents = await waitForTurnEnd(turn.received, next.turnId, 60_000);
  expect(nextEvents.filter((e) => e.event === "done")).to.have.length(1);
  expect(finalErrors(nextEvents)).to.have.length(0);
}
