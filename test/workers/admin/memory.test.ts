/**
 * The admin assistant's conversation memory on the real stack with the scripted model: a long
 * session's prompt carries the last 6 turns raw plus a summary of the older ones, the summary is
 * refreshed by the `chat-summarise` job and shows in the next prompt, and the whole request — tools
 * and tool results included — fits a small context window (LLM_CONTEXT_WINDOW 8K).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { ChatReply, ChatRequest } from "../../../offline-model/responder";
import { offlineReply } from "../../../offline-model/offline-responder";
import { SUMMARY_TASK } from "../../../lib/prompt-markers";
import { ELIDED_RESULT } from "../../../workers/admin/fit-request";
import { countMessageTokens, countTokens } from "../../../workers/llm/tokens";
import { api, waitFor } from "../../harness/client";
import type { RecordedRequest } from "../../harness/scripted-llm";
import { stackSuite } from "../../support/suite";
import { dropOrganisation, freshOrganisation } from "../../server/routes/allowance/helpers";
import { ADMIN_PROMPT_MARKER, askAdmin, cleanUp, freshUser, type Person } from "./helpers";

const SUMMARY_MARKER = "SUMMARY-OF-EARLIER-TURNS";
const WINDOW = 8_192;
/** The admin loop's `maxTokens`: the reply's share of the window. */
const REPLY_RESERVE = 1_500;

/** A past turn as an admin session really has them: a question and a long answer listing people and figures. */
function pastTurn(i: number): { user: string; assistant: string } {
  const rows = Array.from(
    { length: 12 },
    (_, k) => `- Person ${i}-${k} (Sales): Returns Essentials ${40 + k}% done, deadline 2026-12-${10 + (k % 18)}, level 3 in returns handling`,
  );
  return {
    user: `Question ${i}: who in Sales is behind on Returns Essentials, and who could mentor them on returns handling?`,
    assistant: `Answer ${i}. Here is where Sales stands on Returns Essentials:\n${rows.join("\n")}\nCarlos Ruiz (level 4) could mentor the three furthest behind.`,
  };
}

/** Every token the request sends: its messages and its tools' JSON Schema. */
const promptTokensOf = (request: RecordedRequest): number =>
  countMessageTokens(request.body.messages) + (request.body.tools ? countTokens(JSON.stringify(request.body.tools)) : 0);

describe("admin assistant memory (last 6 turns raw, a queued summary, fitted to the window)", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });
  let admin: Person;
  let previousWindow: number | undefined;

  before(async () => {
    admin = await freshUser(stack, { role: "admin", name: "Memory Admin" });
    previousWindow = stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW;
    stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = WINDOW;
  });
  after(async () => {
    stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = previousWindow;
    await cleanUp(stack);
  });

  /** Admin turns call get_skills_matrix once (a large result), then answer; the summary prompt gets the marker. */
  function script(): void {
    stack.llm.setResponder((request: ChatRequest): ChatReply => {
      const first = String(request.messages[0]?.content ?? "");
      if (first.includes(SUMMARY_TASK)) return { content: `${SUMMARY_MARKER}: the admin reviewed Sales' progress on Returns Essentials and mentors.` };
      if (!first.includes(ADMIN_PROMPT_MARKER)) return offlineReply(request);
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { content: "Sales is mostly on track; Carlos Ruiz can mentor." };
      return { toolCalls: [{ name: "get_skills_matrix", arguments: {} }] };
    });
  }

  const adminRequests = (message: string): RecordedRequest[] =>
    stack.llm.chatCalls().filter((call) => {
      const messages = call.body?.messages ?? [];
      return String(messages[0]?.content ?? "").includes(ADMIN_PROMPT_MARKER) && messages.some((m: any) => m.role === "user" && m.content === message);
    });

  it("after 30 turns sends 6 raw turns and the summary the chat-summarise job wrote, within an 8K window", async () => {
    const db = stack.server.deps.db;
    const [session] = await db("chat_sessions")
      .insert({ org_id: stack.demo.orgId, user_id: admin.id, agent_type: "admin", title: "Long session" })
      .returning("id");
    const start = Date.now() - 3_600_000;
    const rows = [];
    for (let i = 1; i <= 29; i++) {
      const turnId = randomUUID();
      const { user, assistant } = pastTurn(i);
      const base = { org_id: stack.demo.orgId, session_id: session.id, turn_id: turnId, status: "complete" };
      rows.push({ ...base, role: "user", content: user, created_at: new Date(start + i * 1_000) });
      rows.push({ ...base, role: "assistant", content: assistant, created_at: new Date(start + i * 1_000 + 500), metadata: { agent: "admin" } });
    }
    await db("chat_messages").insert(rows);
    script();

    // Turn 30: its end queues the summary of turns 1–24 (six more turns aged out of the raw window).
    const turn30 = await askAdmin(stack, admin, "Question 30: and Marketing?", session.id);
    expect(turn30.answer?.status).to.equal("complete");
    const summarised = await waitFor(
      async () => {
        const row = await db("chat_sessions").where({ id: session.id }).first("summary", "summary_turn_count");
        return row?.summary ? row : undefined;
      },
      20_000,
      "the admin session's summary",
    );
    expect(summarised.summary).to.include(SUMMARY_MARKER);
    expect(summarised.summary_turn_count).to.equal(24);
    // The admin summary prompt, over exactly the 24 turns that aged out, spoken by the admin and the assistant.
    const summaryRequests = stack.llm.chatCalls().filter((call) => String(call.body?.messages?.[0]?.content ?? "").includes(SUMMARY_TASK));
    expect(summaryRequests).to.have.length(1);
    const summaryText = String(summaryRequests[0]!.body.messages[0].content);
    expect(summaryText).to.include("between an admin and their administration assistant");
    expect(summaryText.match(/^Admin: Question \d+:/gm)).to.have.length(24);
    expect(summaryText).to.include("Admin: Question 24:").and.not.include("Question 25:");
    expect(summaryText).to.include("Assistant: Answer 24.");

    // Turn 31: 30 earlier turns, 24 of them in the summary.
    const message = "Question 31: who should mentor Marketing?";
    const turn31 = await askAdmin(stack, admin, message, session.id);
    expect(turn31.answer?.status).to.equal("complete");
    const requests = adminRequests(message);
    expect(requests).to.have.length(2, "one round with the tool call, one with its result");
    const figures = requests.map(promptTokensOf);
    console.log(`      admin turn 31 prompt tokens per round (messages + tools): ${figures.join(", ")} (window ${WINDOW}, reply reserve ${REPLY_RESERVE})`);

    for (const request of requests) {
      const messages = request.body.messages as Array<{ role: string; content: string | null }>;
      const summaries = messages.filter((m) => m.role === "system" && String(m.content).includes(SUMMARY_MARKER));
      expect(summaries, "the summary is in the prompt").to.have.length(1);
      // The raw history: the user turns before this one, the newest six exactly.
      const pastQuestions = messages.filter((m) => m.role === "user" && m.content !== message).map((m) => String(m.content).split(":")[0]);
      expect(pastQuestions).to.deep.equal(["Question 25", "Question 26", "Question 27", "Question 28", "Question 29", "Question 30"]);
      expect(messages.at(-1)!.role === "user" || messages.at(-1)!.role === "tool").to.equal(true);
      expect(promptTokensOf(request) + REPLY_RESERVE).to.be.at.most(WINDOW);
    }
    // The second round carries the tool's result (counted, and cut to fit if it had to be).
    const toolMessage = (requests[1]!.body.messages as any[]).find((m) => m.role === "tool");
    expect(toolMessage?.content).to.be.a("string").and.not.equal("");

    // Another organisation's admin can neither continue this session nor get its summary in a session of their own.
    const orgB = await freshOrganisation(stack, "Memory B");
    try {
      const adminB = await freshUser(stack, { role: "admin", orgId: orgB });
      const intruding = await api(stack.baseUrl, "POST", "/api/v1/chat/admin", { token: adminB.token, body: { message: "Continue", session_id: session.id } });
      expect(intruding.status).to.equal(404);
      const own = await askAdmin(stack, adminB, "Question B: who is behind?");
      expect(own.answer?.status).to.equal("complete");
      const sentToB = adminRequests("Question B: who is behind?");
      expect(sentToB.length).to.be.greaterThan(0);
      expect(JSON.stringify(sentToB.map((r) => r.body.messages)))
        .to.not.include(SUMMARY_MARKER)
        .and.not.include("Question 30");
    } finally {
      await dropOrganisation(stack, orgB);
    }
  });

  it("in a window too small for every round, elides the earlier round's tool result and keeps the current round's whole", async () => {
    const rounds = [[{ name: "list_employees", arguments: {} }], [{ name: "get_skills_matrix", arguments: {} }]];
    stack.llm.setResponder((request: ChatRequest): ChatReply => {
      const first = String(request.messages[0]?.content ?? "");
      if (!first.includes(ADMIN_PROMPT_MARKER)) return offlineReply(request);
      const done = request.messages.filter((m) => m.role === "assistant" && m.tool_calls?.length).length;
      return rounds[done] ? { toolCalls: rounds[done]! } : { content: "Everyone is listed above." };
    });
    const ask = async (message: string) => {
      const turn = await askAdmin(stack, admin, message);
      expect(turn.answer?.status).to.equal("complete");
      return adminRequests(message);
    };
    // With a roomy window, the third request (both results) shows what the turn costs in full.
    stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = 100_000;
    const roomy = await ask("Everyone and their skills, please.");
    expect(roomy).to.have.length(3);
    const full = promptTokensOf(roomy[2]!);
    // A window that holds the second request but not the third.
    const window = full + REPLY_RESERVE - 100;
    stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = window;
    try {
      const tight = await ask("Everyone and their skills, please, again.");
      expect(tight).to.have.length(3);
      for (const request of tight) expect(promptTokensOf(request) + REPLY_RESERVE).to.be.at.most(window);
      const tools = (request: RecordedRequest) => (request.body.messages as any[]).filter((m) => m.role === "tool").map((m) => m.content);
      expect(countTokens(tools(roomy[2]!)[0]), "round 1's result is worth eliding").to.be.greaterThan(200);
      const [employees, matrix] = tools(tight[2]!);
      expect(employees).to.equal(ELIDED_RESULT);
      expect(matrix).to.equal(tools(roomy[2]!)[1], "the current round's result is sent whole");
      expect(tools(tight[1]!)[0]).to.equal(tools(roomy[1]!)[0], "round 2 still had room for round 1's result");
    } finally {
      stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = WINDOW;
    }
  });
});
