/**
 * Conversation memory: once turns age out of the raw window a summary is cached on the session
 * (off the critical path), and later prompts carry it in place of the turns it covers. A
 * summariser that fails leaves the turns themselves untouched.
 */
import { expect } from "chai";
import { waitFor } from "../../harness/client";
import { countMessageTokens } from "../../../workers/llm/tokens";
import { useStack, type Stack } from "../../support/stack";
import {
  SUMMARY_MARKER,
  ask,
  chatRequestsContaining,
  freshEmployee,
  removeFreshEmployees,
  generationRequestsFor,
  promptOf,
  scriptedResponder,
  type Learner,
  type Turn,
} from "./helpers";

const QUESTIONS = [
  "My name is Zoltan and I work at the Lisbon store. How long is the refund window?",
  "Do weekends count towards the 30 days?",
  "What if the customer has no receipt?",
  "Can a faulty kettle be exchanged after two months?",
  "How are card refunds paid back?",
  "Can gift cards be returned?",
  "What about personalised products?",
  "Who decides on a worn item?",
  "Remind me: what is my name and where do I work?",
];

describe("the tutor, complete: conversation memory", function () {
  this.timeout(90_000);
  let stack: Stack;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });

  afterEach(() => {
    stack.llm.reset();
    // A failed summary trips the workers' breaker for the model; don't leave that to other suites.
    stack.workers.deps.llm.cooldowns.clear();
  });
  after(() => removeFreshEmployees(stack));

  async function session(): Promise<{
    learner: Learner;
    say: (n: number) => Promise<Turn>;
    row: () => Promise<{ summary: string | null; summary_turn_count: number }>;
  }> {
    const learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    let sessionId: string | undefined;
    return {
      learner,
      say: async (n) => {
        const turn = await ask(stack, learner, QUESTIONS[n - 1]!, sessionId ? { session_id: sessionId } : {});
        sessionId = turn.sessionId;
        expect(turn.errors, `turn ${n} had no error`).to.deep.equal([]);
        expect(turn.done, `turn ${n} finished`).to.not.equal(undefined);
        return turn;
      },
      row: async () => stack.server.deps.db("chat_sessions").where({ id: sessionId }).first(),
    };
  }

  it("summarises aged-out turns and puts the summary, not those turns, in the 9th turn's prompt", async () => {
    const { say, row, learner } = await session();
    for (let n = 1; n <= 6; n++) await say(n);
    expect((await row()).summary, "six turns still fit the raw window: nothing to summarise").to.equal(null);

    await say(7);
    const first = await waitFor(
      async () => {
        const current = await row();
        return current.summary ? current : undefined;
      },
      15_000,
      "the session summary",
    );
    expect(first.summary_turn_count).to.equal(1);
    expect(first.summary).to.include("Zoltan");

    await say(8);
    const afterEight = await row();
    expect(afterEight.summary, "after 8 turns the session has its summary").to.equal(first.summary);
    expect(afterEight.summary_turn_count).to.equal(1);

    const ninth = await say(9);
    const [generation] = generationRequestsFor(stack, QUESTIONS[8]!);
    const messages = generation!.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).to.equal("system");
    expect(messages).to.deep.include({ role: "system", content: `Summary of the earlier conversation: ${afterEight.summary}` });
    const userTexts = messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(userTexts, "the summarised turn is not repeated raw").to.not.include(QUESTIONS[0]);
    for (const n of [2, 3, 4, 5, 6, 7, 8]) expect(userTexts, `turn ${n} raw`).to.include(QUESTIONS[n - 1]);
    expect(userTexts.at(-1)).to.include(QUESTIONS[8]);
    expect(ninth.answer?.status).to.equal("complete");

    const summaryUsage = await stack.server.deps.db("llm_usage_log").where({ user_id: learner.userId, use_case: "summary" });
    expect(summaryUsage.length).to.be.greaterThan(0);
  });

  it("keeps answering when the summariser fails", async () => {
    stack.llm.setResponder(
      scriptedResponder({
        summary: () => {
          throw new Error("summariser is down");
        },
      }),
    );
    const { say, row, learner } = await session();
    const turns: Turn[] = [];
    for (let n = 1; n <= 7; n++) turns.push(await say(n));

    // The refresh queued after turn 7 is tried (and retried) and finally fails...
    const queue = stack.server.deps.producer.queue("chat-summarise");
    const failed = (covering: number) => {
      const jobId = `${turns[0]!.sessionId}-summary-${covering}`;
      return waitFor(async () => (await queue.getJobState(jobId)) === "failed", 20_000, `summary job ${jobId} to fail`);
    };
    await failed(1);
    const attempts = chatRequestsContaining(stack, SUMMARY_MARKER).filter((r) => promptOf(r).includes("Zoltan"));
    expect(attempts.length).to.be.greaterThan(1);

    // ...and the conversation carries on regardless.
    turns.push(await say(8));
    turns.push(await say(9));
    for (const turn of turns) {
      expect(turn.answer?.status).to.equal("complete");
      expect(turn.answer?.content.trim()).to.not.equal("");
    }
    expect(
      learner.events.filter((e) => e.event === "error"),
      "no turn heard about the summariser",
    ).to.deep.equal([]);
    const [ninth] = generationRequestsFor(stack, QUESTIONS[8]!);
    expect(promptOf(ninth!)).to.not.include("Summary of the earlier conversation");
    // Without a summary, the raw history still carries the whole conversation.
    expect(promptOf(ninth!)).to.include(QUESTIONS[0]);
    // Each later turn queued another refresh; let them fail too before the breaker is reset.
    await Promise.all([failed(2), failed(3)]);
    expect((await row()).summary).to.equal(null);
  });

  it("sizes the prompt and the reply for LLM_CONTEXT_WINDOW: a 3K window gets a trimmed prompt, not a refusal", async () => {
    const previous = stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW;
    stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = 3_072;
    try {
      const { say } = await session();
      for (let n = 1; n <= 3; n++) await say(n);
      const last = await say(4);
      expect(last.answer?.status).to.equal("complete");
      const [generation] = generationRequestsFor(stack, QUESTIONS[3]!);
      const body = generation!.body as { messages: Array<{ role: string; content: string }>; max_tokens: number };
      expect(body.max_tokens, "the reply's reserve shrinks with the window").to.equal(768);
      expect(countMessageTokens(body.messages) + body.max_tokens).to.be.at.most(3_072);
      expect(body.messages.at(-1)!.content).to.include(QUESTIONS[3]);
    } finally {
      stack.workers.deps.config.llm.LLM_CONTEXT_WINDOW = previous;
    }
  });
});
