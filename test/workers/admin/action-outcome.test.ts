/**
 * The end of a confirmed action is written into the conversation, through the real workers: an
 * admin confirms an assignment with a plain "yes", the `admin-actions` run ends, and the session
 * holds a message saying how it ended — which the next admin turn's prompt carries. That next
 * request also shows what the model is given on every turn: the assistant's boundaries (no
 * medical, legal or financial advice; off-topic redirected; what needs attention first), its
 * temperature, and only the tools relevant to a question about courses.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { api, waitFor } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { ADMIN_PROMPT_MARKER, addEmployees, askAdmin, cleanUp, freshUser, scriptTurn, unique, waitForAction, type Person } from "./helpers";

describe("the outcome of an admin action in the conversation", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  let admin: Person;

  before(async () => {
    admin = await freshUser(stack, { role: "admin" });
  });
  after(async () => {
    stack.llm.setResponder(null);
    await cleanUp(stack);
  });

  it("writes how the run ended into the session, and the next turn's prompt carries it", async () => {
    const department = `Outcome Team ${unique()}`;
    await addEmployees(stack, department, [`Olga ${unique()}`, `Omar ${unique()}`, `Oona ${unique()}`]);
    scriptTurn(stack, { calls: [{ name: "assign_course", arguments: { course_id: DEMO_IDS.courseIds.warehouseSafety, department } }], answer: "Shall I?" });
    const proposal = await askAdmin(stack, admin, `Assign the warehouse safety course to ${department}`);
    const actionId = proposal.pending?.actionId as string;
    expect(actionId, JSON.stringify(proposal.toolResults)).to.be.a("string");

    const confirmation = await askAdmin(stack, admin, "yes", proposal.sessionId);
    expect(confirmation.answer?.metadata.action_decision).to.equal("confirmed");
    const { action } = await waitForAction(stack, admin, actionId, ["completed", "partial", "failed"]);
    expect(action).to.include({ status: "completed", done: 3 });

    const outcome = await waitFor(
      async () => {
        const stored = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${proposal.sessionId}/messages`, { token: admin.token });
        return (stored.body.messages as any[]).find((m) => m.metadata?.action_outcome?.action_id === actionId);
      },
      10_000,
      "the outcome message",
    );
    expect(outcome.role).to.equal("assistant");
    expect(outcome.metadata.action_outcome.status).to.equal("completed");
    expect(outcome.content).to.include(action.preview).and.to.include("all 3 items were applied");

    const question = "Which courses have the lowest completion rate?";
    scriptTurn(stack, { answer: "Warehouse safety is lowest.", forMessage: question });
    stack.llm.reset();
    const next = await askAdmin(stack, admin, question, proposal.sessionId);
    expect(next.answer?.status).to.equal("complete");
    const [request] = stack.llm
      .chatCalls()
      .filter((call) => String(call.body?.messages?.[0]?.content ?? "").includes(ADMIN_PROMPT_MARKER) && call.body.messages.at(-1)?.content === question);
    expect(request, "the next turn's request").to.exist;
    const history = (request!.body.messages as Array<{ role: string; content: string | null }>).slice(1, -1);
    expect(
      history.some((m) => m.role === "assistant" && String(m.content).includes(outcome.content)),
      "the outcome is in the history",
    ).to.equal(true);

    const system = String(request!.body.messages[0].content);
    expect(system).to.match(/no medical, legal or financial advice/);
    expect(system).to.match(/nothing to do with training, people or the platform, say in one friendly sentence/);
    expect(system).to.match(/deadlines that are close or missed/);
    expect(request!.body.temperature).to.equal(0.5);
    const tools = (request!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(tools).to.include.members(["list_courses", "get_course_stats", "list_employees"]);
    expect(tools).to.not.include("deactivate_employee");
  });
});
