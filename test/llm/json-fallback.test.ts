/** Providers that reject `response_format` still get structured output: asked again without it. */
import { expect } from "chai";
import { z } from "zod";
import { chatJson } from "../../workers/llm/json-output";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm";
import { makeClient } from "./helpers";

describe("structured output on providers without response_format", () => {
  let llm: ScriptedLlm;
  before(async () => (llm = await startScriptedLlm()));
  after(() => llm.close());
  afterEach(() => llm.reset());

  it("retries once without response_format after a 400, then parses the JSON", async () => {
    const { client } = makeClient(llm);
    llm.enqueueReply({ status: 400, body: { error: { message: "response_format is not supported" } } }, { content: '```json\n{"answer": "30 days",}\n```' });
    const result = await chatJson(client, { useCase: "evaluation" }, [{ role: "user", content: "Respond with JSON" }], z.object({ answer: z.string() }));
    expect(result).to.deep.equal({ answer: "30 days" });
    const [first, second] = llm.chatCalls();
    expect(first!.body.response_format).to.deep.equal({ type: "json_object" });
    expect(second!.body.response_format).to.equal(undefined);
  });

  it("does not retry a 400 for calls that did not ask for JSON", async () => {
    const { client } = makeClient(llm);
    llm.enqueueReply({ status: 400 });
    let code: string | undefined;
    await client.chat({ useCase: "tutor" }, [{ role: "user", content: "hi" }]).catch((error) => (code = error.code));
    expect(code).to.equal("LLM_CONFIG_ERROR");
    expect(llm.chatCalls()).to.have.length(1);
  });
});
