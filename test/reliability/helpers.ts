/**
 * Helpers of the reliability suites: an extra set of workers in this process with its own
 * settings (short timeouts, a database behind a switch), and a turn's events and stored rows.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Worker } from "bullmq";
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { startWorkers, type RunningWorkers } from "../../workers/host";
import { ModelCooldowns } from "../../workers/llm/cooldowns";
import { api, waitFor, type ReceivedEvent } from "../support/client";
import type { Stack } from "../support/stack";

/** Workers with `overrides` on top of the stack's environment; their own model cooldowns, so a tripped model stays local. */
export function startOwnWorkers(overrides: Record<string, string>): Promise<RunningWorkers> {
  const config = parseConfig({ ...process.env, ...overrides });
  return startWorkers(config, { skipEmbeddingCheck: true, llm: { retry: { attempts: 2, baseDelayMs: 50, maxDelayMs: 200 }, cooldowns: new ModelCooldowns() } });
}

/**
 * A worker process (workers/main.ts) on the stack's environment plus `env`, added to `children`
 * so the test can kill what it started; resolves once the process is taking jobs.
 */
export async function spawnReadyWorker(stack: Stack, env: Record<string, string | undefined>, children: ChildProcess[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], {
    env: { ...process.env, ...stack.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  await waitFor(() => output.includes("READY workers") || child.exitCode !== null, 60_000, "worker READY");
  expect(child.exitCode, "worker exited before it was ready").to.equal(null);
  return child;
}

/** The stack's own worker for a queue, to pause while a test's workers take that queue. */
export function stackWorker(stack: Stack, queue: string): Worker {
  const worker = stack.workers.workers.find((candidate) => candidate.name === queue);
  if (!worker) throw new Error(`the stack runs no ${queue} worker`);
  return worker;
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
