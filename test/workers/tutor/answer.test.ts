/**
 * After generation: citations are checked against the sources actually given (an invented
 * `[9]` is dropped from the citations and from the text), and every model call of a turn is
 * accounted for in llm_usage_log, tied to the org and the employee.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { stackSuite } from "../../support/suite";
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
});
