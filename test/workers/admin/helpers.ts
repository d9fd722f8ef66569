/**
 * Shared helpers for the admin assistant suites: admins and employees of their own (so rate
 * limits and data never leak between tests), one admin turn over real HTTP + Socket.IO, and a
 * scripted model that answers the admin's tool-calling rounds as a test dictates.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Socket } from "socket.io-client";
import type { ChatReply, ChatRequest } from "../../../offline-model/responder";
import { offlineReply } from "../../../offline-model/offline-responder";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd, type ReceivedEvent } from "../../harness/client";
import type { Stack } from "../../support/stack";
import { testEnv } from "../../support/tunables";

export const ADMIN_PROMPT_MARKER = "administration assistant of";

export interface Person {
  id: string;
  name: string;
  email: string;
  token: string;
  socket: Socket;
  events: ReceivedEvent[];
}

const made: string[] = [];
const sockets: Socket[] = [];

export const unique = (): string => randomUUID().slice(0, 8);

/** A new user of `orgId` (the demo org by default), signed in with a socket recording its events. */
export async function freshUser(
  stack: Stack,
  options: { role?: "admin" | "employee"; name?: string; department?: string; orgId?: string; locale?: "es" | "en" } = {},
): Promise<Person> {
  const db = stack.server.deps.db;
  const email = `admin-test-${unique()}@example.com`;
  const name = options.name ?? `Person ${unique()}`;
  const [row] = await db("users")
    .insert({
      org_id: options.orgId ?? DEMO_IDS.orgId,
      email,
      name,
      role: options.role ?? "employee",
      department: options.department ?? "QA",
      locale: options.locale ?? "en",
    })
    .returning("id");
  made.push(row.id);
  const { token } = await login(stack.baseUrl, email);
  const socket = await connect(stack.baseUrl, token);
  sockets.push(socket);
  return { id: row.id, name, email, token, socket, events: recordEvents(socket) };
}

/** Rows for people who never sign in (targets of actions). */
export async function addEmployees(
  stack: Stack,
  department: string,
  names: string[],
  orgId: string = DEMO_IDS.orgId,
): Promise<Array<{ id: string; name: string }>> {
  const db = stack.server.deps.db;
  const rows = await db("users")
    .insert(names.map((name) => ({ org_id: orgId, email: `target-${unique()}@example.com`, name, role: "employee", department, locale: "en" })))
    .returning(["id", "name"]);
  made.push(...rows.map((r: { id: string }) => r.id));
  return rows;
}

export async function cleanUp(stack: Stack): Promise<void> {
  for (const socket of sockets.splice(0)) socket.disconnect();
  const ids = made.splice(0);
  // In slices: a test's 2,000 targets with their enrollments and audit rows in one DELETE can outlast the statement timeout on a busy machine.
  for (let i = 0; i < ids.length; i += 250) await deleteUsers(stack, ids.slice(i, i + 250));
}

/**
 * Deletes people, asked again when PostgreSQL picks this delete as a deadlock's victim: a job still
 * writing rows of theirs (a key's last use, a sourced document's ingestion) can lock them in the
 * other order; the victim's transaction is rolled back whole, so asking again is safe.
 */
async function deleteUsers(stack: Stack, ids: string[]): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await stack.server.deps.db("users").whereIn("id", ids).delete();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "40P01" || attempt === 3) throw error;
    }
  }
}

export interface AdminTurn {
  status: number;
  sessionId: string;
  turnId: string;
  events: ReceivedEvent[];
  names: string[];
  tokens: string;
  answer: { id: string; content: string; status: string; metadata: Record<string, any> } | undefined;
  pending: any;
  toolResults: any[];
}

/** Posts one admin message, joins its session, waits for the turn to end and loads what was stored. */
export async function askAdmin(stack: Pick<Stack, "baseUrl">, admin: Person, message: string, sessionId?: string): Promise<AdminTurn> {
  const posted = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", {
    token: admin.token,
    body: { message, ...(sessionId ? { session_id: sessionId } : {}) },
  });
  expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
  const { session_id, turn_id } = posted.body as { session_id: string; turn_id: string };
  const ack = await join(admin.socket, { sessionId: session_id });
  expect(ack).to.include({ ok: true });
  const events = await waitForTurnEnd(admin.events, turn_id);
  const stored = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${session_id}/messages`, { token: admin.token });
  const answer = (stored.body.messages as any[]).find((m) => m.turn_id === turn_id && m.role === "assistant");
  return {
    status: posted.status,
    sessionId: session_id,
    turnId: turn_id,
    events,
    names: events.map((e) => e.event),
    tokens: events
      .filter((e) => e.event === "token")
      .map((e) => e.payload.content)
      .join(""),
    answer,
    pending: events.find((e) => e.event === "action_pending")?.payload,
    toolResults: events.filter((e) => e.event === "tool_result").map((e) => e.payload),
  };
}

/** The tool messages the model was sent, parsed, across every captured request of the admin prompt. */
export function toolMessagesSent(stack: Stack): Array<{ tool_call_id: string; content: any }> {
  const seen = new Map<string, any>();
  for (const request of stack.llm.chatCalls()) {
    for (const message of request.body?.messages ?? []) {
      if (message.role === "tool" && !seen.has(message.tool_call_id)) seen.set(message.tool_call_id, JSON.parse(message.content));
    }
  }
  return [...seen].map(([tool_call_id, content]) => ({ tool_call_id, content }));
}

/**
 * A responder for admin turns: the first round calls `calls` (in one reply), later rounds
 * answer `answer` (or summarise like the offline model). Requests that are not admin turns fall
 * to the offline model, so other suites' jobs still get sensible replies.
 */
export function scriptTurn(
  stack: Stack,
  script: {
    calls?: Array<{ name: string; arguments: Record<string, unknown> }>;
    rounds?: Array<Array<{ name: string; arguments: Record<string, unknown> }>>;
    answer?: string;
    forMessage?: string;
  },
): void {
  const rounds = script.rounds ?? (script.calls ? [script.calls] : []);
  stack.llm.setResponder((request: ChatRequest): ChatReply => {
    const system = String(request.messages[0]?.content ?? "");
    if (!system.includes(ADMIN_PROMPT_MARKER)) return offlineReply(request);
    const lastUser = [...request.messages].reverse().find((m) => m.role === "user");
    if (script.forMessage && !String(lastUser?.content ?? "").includes(script.forMessage)) return offlineReply(request);
    const lastUserIndex = request.messages.lastIndexOf(lastUser!);
    const roundsDone = request.messages.slice(lastUserIndex).filter((m) => m.role === "assistant" && m.tool_calls?.length).length;
    const next = rounds[roundsDone];
    if (next) return { toolCalls: next };
    return script.answer !== undefined ? { content: script.answer } : offlineReply(request);
  });
}

export async function actionOf(stack: Pick<Stack, "baseUrl">, admin: Person, actionId: string): Promise<{ action: any; items: any[] }> {
  const response = await api(stack.baseUrl, "GET", `/api/v1/admin/actions/${actionId}`, { token: admin.token });
  expect(response.status, JSON.stringify(response.body)).to.equal(200);
  return response.body;
}

export async function waitForAction(
  stack: Pick<Stack, "baseUrl">,
  admin: Person,
  actionId: string,
  statuses: string[],
  timeoutMs = 20_000,
): Promise<{ action: any; items: any[] }> {
  return waitFor(
    async () => {
      const found = await actionOf(stack, admin, actionId);
      return statuses.includes(found.action.status) ? found : undefined;
    },
    timeoutMs,
    `action ${actionId} to reach ${statuses.join("/")}`,
  );
}

/**
 * A worker process (workers/main.ts) serving only `admin-actions`, slowly (2 items a batch, 150 ms
 * between batches) and with short locks, so a test can kill it mid-action and see another worker
 * take the job over within seconds.
 */
export function spawnSlowActionWorker(stack: Pick<Stack, "env">): ChildProcess {
  const env = testEnv({
    ...process.env,
    ...stack.env,
    WORKER_QUEUES: "admin-actions:1",
    ADMIN_ACTION_BATCH_SIZE: "2",
    ADMIN_ACTION_BATCH_PAUSE_MS: "150",
    WORKER_LOCK_DURATION_MS: "2000",
    WORKER_STALLED_INTERVAL_MS: "1000",
    LOG_LEVEL: "silent",
  });
  return spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], { env, stdio: "ignore" });
}
