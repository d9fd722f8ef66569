/**
 * After generation: citations are checked against the sources actually given (an invented
 * `[9]` is dropped from the citations and from the text), and every model call of a turn is
 * accounted for in llm_usage_log, tied to the org and the employee.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { stackSuite } from "../../support/suite";
import type { ChatRequest } from "../../../offline-model/responder";
import { CITE_INSTRUCTION } from "../../../workers/tutor/cite-retry";
import { ask, freshEmployee, removeFreshEmployees, generationRequestsFor, promptOf, scriptedResponder, type Learner } from "./helpers";

describe("the tutor, complete: the answer", function () {
  const stack = stackSuite(this, { cleanUp: removeFreshEmployees });

  async function newLearner(): Promise<Learner> {
    const learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    return learner;
  }

  it("drops an invented [9] citation from the citations and from the streamed and stored answer", async () => {
    const learner = await newLearner();
    const scripted = "You are taking Returns Essentials [1]. Your manager also mentioned a bonus [9].";
    stack.llm.setResponder(scriptedResponder({ generation: () => scripted }));
    const turn = await ask(stack, learner, "What is my progress?");

    expect(turn.grounding.sources.length, "progress facts are sources [1]..[n]").to.be.within(1, 8);
    expect(turn.citations.map((c) => c.index)).to.deep.equal([1]);
    expect(turn.citations[0]).to.include({ index: 1, sourceType: "progress", document: "Your courses" });
    // The marker of a source that was never given is removed before anyone sees it (answer-guard.ts).
    const cleaned = "You are taking Returns Essentials [1]. Your manager also mentioned a bonus.";
    expect(turn.tokens).to.equal(cleaned);
    expect(turn.answer?.content).to.equal(cleaned);
    expect((turn.answer!.metadata.citations as Array<{ index: number }>).map((c) => c.index)).to.deep.equal([1]);
    expect(turn.names.indexOf("citations")).to.be.greaterThan(turn.names.lastIndexOf("token"));
    expect(turn.names.at(-1)).to.equal("done");
  });

  it("cites nothing when the model cites only sources it was never given", async () => {
    const learner = await newLearner();
    stack.llm.setResponder(scriptedResponder({ generation: () => "Hello! As [2] and [3] say, welcome." }));
    const turn = await ask(stack, learner, "hello");
    expect(turn.grounding.sources).to.deep.equal([]);
    expect(turn.citations).to.deep.equal([]);
    expect(turn.answer?.content).to.equal("Hello! As and say, welcome.");
  });

  it("writes one llm_usage_log row per model call, tied to the org and the employee", async () => {
    const learner = await newLearner();
    const question = "How many days do I have to return an item for a refund?";
    const before = await stack.server.deps.db("llm_usage_log").where({ user_id: learner.userId }).count<{ count: string }[]>("* as count").first();
    expect(Number(before?.count)).to.equal(0);

    const turn = await ask(stack, learner, question);
    expect(turn.done).to.not.equal(undefined);

    // This turn's calls: the query embedding and the streamed generation (the sources found settle the route: no classifier).
    const chatCalls = stack.llm.chatCalls().filter((r) => promptOf(r).includes(question));
    const embeddingCalls = stack.llm.embeddingCalls().filter((r) => JSON.stringify(r.body?.input ?? "").includes(question));
    expect(chatCalls).to.have.length(1);
    expect(embeddingCalls).to.have.length(1);

    const rows = await stack.server.deps.db("llm_usage_log").where({ user_id: learner.userId }).orderBy("created_at");
    expect(rows).to.have.length(chatCalls.length + embeddingCalls.length);
    for (const row of rows) expect(row).to.include({ org_id: DEMO_IDS.orgId, user_id: learner.userId });

    const generation = rows.filter((row) => row.use_case === "generation");
    expect(generation).to.have.length(1);
    expect(generation[0]).to.include({ streamed: true, model: "scripted-model" });
    expect(generation[0].prompt_tokens).to.be.greaterThan(0);
    expect(generation[0].completion_tokens).to.be.greaterThan(0);

    expect(
      rows.filter((row) => row.use_case === "tutor" && !String(row.model).startsWith("embedding:")),
      "no classification call",
    ).to.have.length(0);

    const embedding = rows.filter((row) => String(row.model).startsWith("embedding:"));
    expect(embedding).to.have.length(1);
    expect(embedding[0].prompt_tokens).to.be.greaterThan(0);

    expect(turn.done!).to.have.property("tokensUsed", generation[0].prompt_tokens + generation[0].completion_tokens);
  });

  it("the generation prompt carries the numbered sources the citations are checked against", async () => {
    const learner = await newLearner();
    const question = "How many days do I have to return an item for a refund?";
    const turn = await ask(stack, learner, question);
    const [generation] = generationRequestsFor(stack, question);
    const prompt = promptOf(generation!);
    for (const source of turn.grounding.sources) expect(prompt).to.include(`[${source.index}] ${source.document}`);
    for (const citation of turn.citations) expect(turn.grounding.sources.map((s) => s.index)).to.include(citation.index);
    expect(turn.citations.length).to.be.greaterThan(0);
  });

  describe("a grounded answer that cites nothing", () => {
    const question = "How many days do customers have to bring back an item for a refund?";
    const uncited = "Customers have thirty days to bring an item back for a refund.";
    const cited = "Customers have thirty days to bring an item back for a refund [1].";
    /** The streamed answer cites nothing; the retry (the cite instruction last) answers `retry`. */
    function script(retry: string): void {
      const fallback = scriptedResponder({ label: "cross_course" });
      stack.llm.setResponder((request: ChatRequest) => {
        const last = request.messages.at(-1);
        if (!request.stream && last?.role === "user" && last.content === CITE_INSTRUCTION) return { content: retry };
        if (request.stream && promptOf(request).includes(question)) return { content: uncited };
        return fallback(request);
      });
    }
    const retries = () =>
      stack.llm.chatCalls().filter((call) => call.body?.messages?.at(-1)?.content === CITE_INSTRUCTION && promptOf(call).includes(question));
    afterEach(() => stack.llm.setResponder(null));

    it("is asked for once more with the instruction to cite, and the employee is left with the cited answer only", async () => {
      script(cited);
      const turn = await ask(stack, await newLearner(), question);
      expect(turn.grounding.rung).to.equal("chunks");
      expect(generationRequestsFor(stack, question), "one streamed answer").to.have.length(1);
      const [retry] = retries();
      expect(retry, "one retry").to.exist;
      expect(retry!.body.messages.at(-2)).to.deep.include({ role: "assistant", content: uncited });
      // The first answer streamed; `restart` tells the client to drop it; the cited one follows as one token.
      const restart = turn.events.findIndex((e) => e.event === "stage" && e.payload.stage === "generate" && e.payload.status === "restart");
      expect(restart, "restart announced").to.be.greaterThan(0);
      const textOf = (events: typeof turn.events) =>
        events
          .filter((e) => e.event === "token")
          .map((e) => e.payload.content)
          .join("");
      expect(textOf(turn.events.slice(0, restart))).to.equal(uncited);
      expect(textOf(turn.events.slice(restart))).to.equal(cited);
      expect(turn.answer?.content).to.equal(cited);
      expect(turn.answer?.metadata.cite_retry).to.equal("cited");
      expect(turn.citations.map((c) => c.index)).to.deep.equal([1]);
    });

    it("delivers a second uncited answer as it is, flagged, with nothing shown twice", async () => {
      script("Thirty days, from the purchase date.");
      const turn = await ask(stack, await newLearner(), question);
      expect(retries(), "asked once more, only once").to.have.length(1);
      expect(turn.names.filter((name) => name === "stage").length).to.be.greaterThan(0);
      expect(
        turn.events.some((e) => e.event === "stage" && e.payload.status === "restart"),
        "no restart",
      ).to.equal(false);
      expect(turn.tokens).to.equal(uncited);
      expect(turn.answer?.content).to.equal(uncited);
      expect(turn.answer?.metadata.cite_retry).to.equal("uncited");
      expect(turn.citations).to.deep.equal([]);
    });
  });
});
