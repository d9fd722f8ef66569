/**
 * A tutor turn while the primary provider is down, on the real stack: the workers' client gets a
 * second scripted model server as its fallback provider (chat and embeddings), the stack's own
 * server fails every request, and the employee still gets a grounded answer — from the backup,
 * with the backup's key — until the primary's cool-down ends and turns go back to it.
 */
import { expect } from "chai";
import { parseConfig } from "../../../lib/config";
import { LlmClient } from "../../../workers/llm/client";
import { ModelCooldowns } from "../../../workers/llm/cooldowns";
import { type ScriptedLlm, startScriptedLlm } from "../../harness/scripted-llm";
import { stackSuite } from "../../support/suite";
import { FAST_RETRY } from "../llm/helpers";
import { ask, signIn, type Learner } from "./helpers";
import { testEnv } from "../../support/tunables";

const BACKUP_KEY = "sk-backup-tutor-0123456789abcdef";

describe("a tutor turn while the primary model provider is down", function () {
  const stack = stackSuite(this);
  let backup: ScriptedLlm;
  let employee: Learner;
  let primaryClient: LlmClient;
  let now = 1_000_000;

  before(async () => {
    backup = await startScriptedLlm();
    employee = await signIn(stack, "employee@example.com");
    primaryClient = stack.workers.deps.llm;
    const config = parseConfig(
      testEnv({
        ...process.env,
        LLM_FALLBACK_PROVIDERS: JSON.stringify([{ name: "backup", base_url: backup.url, api_key: BACKUP_KEY, model: "backup-model" }]),
        EMBEDDING_FALLBACK_PROVIDERS: JSON.stringify([{ name: "backup", base_url: backup.url, api_key: BACKUP_KEY }]),
      }),
    );
    stack.workers.deps.llm = new LlmClient(config, { retry: FAST_RETRY, cooldowns: new ModelCooldowns(() => now) });
  });
  after(async () => {
    stack.workers.deps.llm = primaryClient;
    employee.socket.disconnect();
    await backup.close();
  });
  afterEach(() => backup.reset());

  it("answers from the backup (chat and embeddings), then from the primary once its cool-down is over", async () => {
    stack.llm.failModel("scripted-model", 503);
    stack.llm.failEmbeddings(503);
    const question = "How many days do customers have to return an item?";
    const down = await ask(stack, employee, question);
    expect(down.errors).to.deep.equal([]);
    expect(down.done).to.not.equal(undefined);
    expect(down.grounding.rung).to.equal("chunks", "retrieval ran on the backup's embeddings");
    expect(down.answer?.metadata.model).to.equal("backup-model");
    expect(backup.embeddingCalls().length).to.be.greaterThan(0);
    expect(backup.chatCalls().length).to.be.greaterThan(0);
    expect(backup.requests.every((request) => request.headers.authorization === `Bearer ${BACKUP_KEY}`)).to.equal(true);

    stack.llm.reset();
    backup.reset();
    now += 61_000;
    const back = await ask(stack, employee, question);
    expect(back.done).to.not.equal(undefined);
    expect(back.answer?.metadata.model).to.equal("scripted-model");
    expect(backup.requests, "the backup is not asked once the primary is back").to.have.length(0);
    expect(stack.llm.embeddingCalls().length).to.be.greaterThan(0);
  });
});
