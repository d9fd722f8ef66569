/**
 * Shared helpers for the tutor suites: one complete turn over real HTTP + socket.io, fresh
 * employees (so rate limits and history never leak between tests), and prompt inspection of
 * the requests the scripted model server captured.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Socket } from "socket.io-client";
import type { ChatReply, ChatRequest } from "../../../offline-model/responder";
import { offlineReply } from "../../../offline-model/offline-responder";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import type { CourseKey } from "../../../db/seeds/demo-courses";
import { api, connect, join, login, recordEvents, waitForTurnEnd, type ReceivedEvent } from "../../harness/client";
import type { RecordedRequest } from "../../harness/scripted-llm";
import { SUMMARY_TASK } from "../../../lib/prompt-markers";
import type { Stack } from "../../support/stack";

/** Stable phrases of the app's prompts (workers/tutor/intent.ts, page-index.ts, prompts.ts). */
export const CLASSIFY_MARKER = "Reply with the label only";
export const MODULE_SELECTION_MARKER = "Which module number or numbers contain the answer?";
export const SUMMARY_MARKER = SUMMARY_TASK;

/** The `stage` events of a turn answered without a hitch, as `stage:status`, in order. */
export const STAGE_EVENTS = [
  "classify:started",
  "classify:completed",
  "retrieve:started",
  "retrieve:completed",
  "generate:started",
  "generate:completed",
  "postprocess:started",
  "postprocess:completed",
];

export interface Learner {
  token: string;
  userId: string;
  email: string;
  socket: Socket;
  events: ReceivedEvent[];
}

/** Signs in (and connects a socket for) an existing user. */
export async function signIn(stack: Stack, email: string): Promise<Learner> {
  const { token, user } = await login(stack.baseUrl, email);
  const socket = await connect(stack.baseUrl, token);
  return { token, userId: user.id, email, socket, events: recordEvents(socket) };
}

const created: Learner[] = [];

/**
 * Disconnects and deletes every employee `freshEmployee` made (their sessions, messages and
 * enrollments go with them), so other suites see the demo org as seeded.
 */
export async function removeFreshEmployees(stack: Stack): Promise<void> {
  const learners = created.splice(0);
  for (const learner of learners) learner.socket.disconnect();
  if (learners.length > 0)
    await stack.server.deps
      .db("users")
      .whereIn(
        "id",
        learners.map((l) => l.userId),
      )
      .delete();
}

/** Inserts a brand-new employee (or admin) of the demo org, optionally enrolled in demo courses, and signs in. */
export async function freshEmployee(
  stack: Stack,
  options: { locale?: string; enrolIn?: CourseKey[]; department?: string; role?: "employee" | "admin" } = {},
): Promise<Learner> {
  const db = stack.server.deps.db;
  const email = `tutor-test-${randomUUID().slice(0, 8)}@example.com`;
  const [row] = await db("users")
    .insert({
      org_id: DEMO_IDS.orgId,
      email,
      name: "Test Learner",
      role: options.role ?? "employee",
      department: options.department ?? "QA",
      locale: options.locale ?? "en",
    })
    .returning("id");
  for (const course of options.enrolIn ?? []) {
    await db("enrollments").insert({ org_id: DEMO_IDS.orgId, user_id: row.id, course_id: DEMO_IDS.courseIds[course], status: "in_progress" });
  }
  const learner = await signIn(stack, email);
  created.push(learner);
  return learner;
}

export interface Turn {
  sessionId: string;
  turnId: string;
  events: ReceivedEvent[];
  names: string[];
  grounding: {
    rung: string;
    source: string;
    sources: Array<{ index: number; document: string; section: string | null; sourceType: string; sourceId: string | null }>;
  };
  citations: Array<{ index: number; sourceType: string; sourceId: string | null }>;
  suggestions: string[];
  done: { messageId: string; retrievalSource: string } | undefined;
  errors: ReceivedEvent[];
  tokens: string;
  /** The stored assistant message (GET /sessions/:id/messages). */
  answer: { id: string; content: string; status: string; metadata: Record<string, any> } | undefined;
}

/** Posts one tutor message, joins its session, waits for `done` (or a final error) and loads what was stored. */
export async function ask(stack: Stack, learner: Learner, message: string, context: Record<string, string> = {}): Promise<Turn> {
  const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token: learner.token, body: { message, context } });
  expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
  const { session_id: sessionId, turn_id: turnId } = posted.body as { session_id: string; turn_id: string };
  const ack = await join(learner.socket, { sessionId });
  expect(ack).to.include({ ok: true });
  const events = await waitForTurnEnd(learner.events, turnId);
  const stored = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token: learner.token });
  const messages = stored.body.messages as Array<NonNullable<Turn["answer"]> & { turn_id: string; role: string }>;
  const answer = messages.find((m) => m.turn_id === turnId && m.role === "assistant");
  const payload = (name: string) => events.find((e) => e.event === name)?.payload;
  return {
    sessionId,
    turnId,
    events,
    names: events.map((e) => e.event),
    grounding: payload("grounding"),
    citations: payload("citations")?.citations ?? [],
    suggestions: payload("suggestions")?.suggestions ?? [],
    done: payload("done"),
    errors: events.filter((e) => e.event === "error"),
    tokens: events
      .filter((e) => e.event === "token")
      .map((e) => e.payload.content as string)
      .join(""),
    answer,
  };
}

/** Every message text of a chat-completions request, joined. */
export function promptOf(request: RecordedRequest | ChatRequest): string {
  const body = "messages" in request ? request : (request as RecordedRequest).body;
  const messages = (body?.messages ?? []) as Array<{ content?: unknown }>;
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""))).join("\n");
}

/** Captured chat requests whose prompt contains `needle`. */
export function chatRequestsContaining(stack: Stack, needle: string): RecordedRequest[] {
  return stack.llm.chatCalls().filter((request) => promptOf(request).includes(needle));
}

/** Captured generation requests (streamed chat completions) of a turn whose question is `question`. */
export function generationRequestsFor(stack: Stack, question: string): RecordedRequest[] {
  return stack.llm.chatCalls().filter((request) => request.body?.stream === true && promptOf(request).includes(question));
}

/**
 * A responder that answers the app's utility prompts as told and leaves everything else to the
 * offline model (so concurrent jobs from other turns still get sensible replies).
 */
export function scriptedResponder(script: {
  label?: string;
  modules?: string;
  summary?: string | (() => never);
  generation?: (request: ChatRequest) => string | undefined;
}): (request: ChatRequest) => ChatReply {
  return (request) => {
    const prompt = promptOf(request);
    if (script.label !== undefined && prompt.includes(CLASSIFY_MARKER)) return { content: script.label };
    if (script.modules !== undefined && prompt.includes(MODULE_SELECTION_MARKER)) return { content: script.modules };
    if (script.summary !== undefined && prompt.includes(SUMMARY_MARKER)) {
      return typeof script.summary === "function" ? script.summary() : { content: script.summary };
    }
    if (request.stream && script.generation) {
      const content = script.generation(request);
      if (content !== undefined) return { content };
    }
    return offlineReply(request);
  };
}
