/**
 * The admin assistant on a model without native tool calling (LLM_TOOL_CALLING=json), on the
 * real stack: the workers' model client is swapped for one in JSON mode against the stack's
 * scripted model, which answers like a local model does — prose, then the tool call in a
 * ```json fence. The tool runs in the caller's organisation, its result goes back as text, the
 * admin never sees the JSON, and a reply with nothing usable ends the turn with LLM_CONFIG_ERROR.
 */
import { expect } from "chai";
import type { ChatReply, ChatRequest } from "../../../offline-model/responder";
import { LlmClient } from "../../../workers/llm/client";
import { stackSuite } from "../../support/suite";
import { dropOrganisation, freshOrganisation } from "../../server/routes/allowance/helpers";
import { FAST_RETRY } from "../llm/helpers";
import { ADMIN_PROMPT_MARKER, askAdmin, cleanUp, freshUser, type Person } from "./helpers";
import { configWith } from "../../support/tunables";

const FENCED_CALL = 'Let me check the catalogue.\n```json\n{"tool_calls": [{"name": "list_courses", "arguments": {}}]}\n```';

describe("the admin assistant with JSON tool calls (LLM_TOOL_CALLING=json)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  let nativeClient: LlmClient;
  let admin: Person;
  let otherOrg: string;
  let otherAdmin: Person;
  const requests: ChatRequest[] = [];

  before(async () => {
    nativeClient = stack.workers.deps.llm;
    stack.workers.deps.llm = new LlmClient(configWith(stack.config, { LLM_TOOL_CALLING: "json" }), { retry: FAST_RETRY, log: stack.workers.deps.log });
    admin = await freshUser(stack, { role: "admin" });
    otherOrg = await freshOrganisation(stack, "JSON tools B");
    otherAdmin = await freshUser(stack, { role: "admin", orgId: otherOrg });
  });
  after(async () => {
    stack.workers.deps.llm = nativeClient;
    await cleanUp(stack);
    await dropOrganisation(stack, otherOrg);
  });
  beforeEach(() => {
    requests.length = 0;
  });

  /** Admin rounds: `first` until a tool result is in the conversation, then a plain answer. */
  const respond = (first: string) =>
    stack.llm.setResponder((request: ChatRequest): ChatReply => {
      if (!String(request.messages[0]?.content ?? "").includes(ADMIN_PROMPT_MARKER)) return { content: "in_course" };
      requests.push(request);
      const resulted = request.messages.some((message) => message.role === "user" && String(message.content).startsWith("Result of the tool"));
      return { content: resulted ? "You have the courses listed above." : first };
    });

  it("runs a tool call sent as prose plus a fenced JSON block, and feeds the result back as text", async () => {
    respond(FENCED_CALL);
    const turn = await askAdmin(stack, admin, "Which courses do we have?");
    expect(turn.names).to.include("done");
    expect(turn.toolResults).to.have.length(1);
    expect(turn.toolResults[0]).to.include({ tool: "list_courses", ok: true });

    expect(requests).to.have.length(2);
    const [first, second] = requests;
    expect(first!.tools ?? [], "no native tools field").to.deep.equal([]);
    expect(String(first!.messages[0]!.content)).to.contain("You can use these tools").and.to.contain("list_courses");
    expect(
      second!.messages.some((message) => message.role === "tool"),
      "no tool-role messages for a model without tools",
    ).to.equal(false);
    const result = second!.messages.find((message) => String(message.content).startsWith("Result of the tool list_courses"));
    expect(String(result?.content)).to.contain("Returns Essentials", "the demo organisation's courses");

    expect(turn.tokens).to.contain("Let me check the catalogue.").and.to.contain("You have the courses listed above.");
    expect(turn.tokens).not.to.contain("tool_calls").and.not.to.contain("```");
    expect(turn.answer?.content ?? "").not.to.contain("tool_calls");
  });

  it("runs the tool in the caller's organisation only", async () => {
    respond(FENCED_CALL);
    const turn = await askAdmin(stack, otherAdmin, "Which courses do we have?");
    expect(turn.toolResults[0]).to.include({ tool: "list_courses", ok: true });
    const result = requests[1]!.messages.find((message) => String(message.content).startsWith("Result of the tool list_courses"));
    expect(String(result?.content)).not.to.contain("Returns Essentials", "another organisation's courses are not listed");
  });

  it("ends the turn with LLM_CONFIG_ERROR when the model's tool call does not match the format", async () => {
    respond('```json\n{"tool_calls": [{"name": "list_courses", "arguments": "all of them"}]}\n```');
    const turn = await askAdmin(stack, admin, "List every course, please.");
    expect(turn.names).not.to.include("done");
    const error = turn.events.find((event) => event.event === "error");
    expect(error?.payload.code).to.equal("LLM_CONFIG_ERROR");
    expect(error?.payload.message).to.contain("nothing usable").and.to.contain("tool_calls.0.arguments");
    expect(turn.toolResults).to.deep.equal([]);
  });
});
