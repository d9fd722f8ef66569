/**
 * Fallback across providers: two scripted OpenAI-compatible servers (and a port nobody listens
 * on), each provider with its own base URL, key and model. Chat, streams and embeddings move to
 * the next provider when one is down, come back once its cool-down is over (a clock the test
 * moves, not a wait), never restart a stream that showed text, and never log a key.
 */
import { expect } from "chai";
import { ConfigError, parseConfig } from "../../../../lib/config";
import { findFreePort } from "../../../../launcher/embedded/child-process";
import { ModelCooldowns } from "../../../../workers/llm/cooldowns";
import type { LlmError } from "../../../../workers/llm/errors";
import { type ScriptedLlm, startScriptedLlm } from "../../../harness/scripted-llm";
import { flushed, makeClient, rejection, TEST_KEY } from "../../../workers/llm/helpers";
import { testEnv } from "../../../support/tunables";

const QUESTION = [{ role: "user" as const, content: "How many days do I have to return an item?" }];
const BACKUP_KEY = "sk-backup-secret-0123456789abcdef";

describe("LlmClient across providers", function () {
  this.timeout(20_000);
  let primary: ScriptedLlm;
  let backup: ScriptedLlm;
  let closedUrl: string;
  let now: number;
  let cooldowns: ModelCooldowns;

  before(async () => {
    [primary, backup] = await Promise.all([startScriptedLlm(), startScriptedLlm()]);
    closedUrl = `http://127.0.0.1:${await findFreePort()}/v1`;
  });
  after(() => Promise.all([primary.close(), backup.close()]));
  beforeEach(() => {
    now = 1_000_000;
    cooldowns = new ModelCooldowns(() => now);
  });
  afterEach(() => {
    primary.reset();
    backup.reset();
  });

  const fallbackEnv = (extra: Record<string, unknown> = {}) => ({
    LLM_FALLBACK_PROVIDERS: JSON.stringify([{ name: "backup", base_url: backup.url, api_key: BACKUP_KEY, model: "backup-model", ...extra }]),
  });

  it("answers from the backup while the primary is down (5xx), then goes back to the primary after its cool-down", async () => {
    primary.failModel("scripted-model", 503);
    const { client, rows, lines } = makeClient(primary, fallbackEnv(), { cooldowns });
    const first = await client.chat({ useCase: "tutor" }, QUESTION);
    expect(first.model).to.equal("backup-model");
    expect(primary.chatCalls()).to.have.length(3, "the primary's retries first");
    expect(backup.chatCalls().map((call) => call.body.model)).to.deep.equal(["backup-model"]);
    expect(backup.chatCalls()[0]!.headers.authorization).to.equal(`Bearer ${BACKUP_KEY}`, "each provider gets its own key");
    expect(primary.chatCalls()[0]!.headers.authorization).to.equal(`Bearer ${TEST_KEY}`);

    const second = await client.chat({ useCase: "tutor" }, QUESTION);
    expect(second.model).to.equal("backup-model");
    expect(primary.chatCalls()).to.have.length(3, "a cooling primary is not asked again");

    primary.failModel("scripted-model", null);
    now += 61_000;
    const third = await client.chat({ useCase: "tutor" }, QUESTION);
    expect(third.model).to.equal("scripted-model", "back on the primary once its minute is over");
    expect(backup.chatCalls()).to.have.length(2);
    expect(rows.map((row) => row.model)).to.deep.equal(["backup-model", "backup-model", "scripted-model"]);
    await flushed();
    expect(lines.join("")).not.to.contain(BACKUP_KEY).and.not.to.contain(TEST_KEY);
    expect(lines.join("")).to.contain('"provider":').and.to.contain("trying the next in the chain");
  });

  it("falls back when the primary refuses connections", async () => {
    const { client } = makeClient(primary, { LLM_BASE_URL: closedUrl, ...fallbackEnv() }, { cooldowns });
    const result = await client.chat({ useCase: "admin" }, QUESTION);
    expect(result.model).to.equal("backup-model");
    expect(backup.chatCalls()).to.have.length(1);
  });

  it("uses the primary's model names on a fallback that names none", async () => {
    primary.failModel("scripted-model", 500);
    const { client } = makeClient(primary, { LLM_FALLBACK_PROVIDERS: JSON.stringify([{ base_url: backup.url }]) }, { cooldowns });
    const result = await client.chat({ useCase: "tutor" }, QUESTION);
    expect(result.model).to.equal("scripted-model");
    expect(backup.chatCalls()).to.have.length(1);
    expect(backup.chatCalls()[0]!.headers.authorization).to.equal("Bearer not-needed", "no key of the primary's is sent to another provider");
  });

  it("a refused key skips that provider's other models, not the next provider", async () => {
    primary.failModel("first-model", 401);
    const { client } = makeClient(primary, { LLM_MODEL: "first-model,second-model", ...fallbackEnv() }, { cooldowns });
    const result = await client.chat({ useCase: "tutor" }, QUESTION);
    expect(result.model).to.equal("backup-model");
    expect(primary.chatCalls().map((call) => call.body.model)).to.deep.equal(["first-model"]);
  });

  it("names the fallback's key setting when every provider refuses", async () => {
    primary.failModel("scripted-model", 500);
    backup.failModel("backup-model", 401);
    const { client } = makeClient(primary, fallbackEnv(), { cooldowns });
    const error = (await rejection(client.chat({ useCase: "tutor" }, QUESTION))) as LlmError;
    expect(error.code).to.equal("LLM_CONFIG_ERROR");
    expect(error.message).to.contain("LLM_FALLBACK_PROVIDERS[0].api_key");
    expect(error.message).not.to.contain(BACKUP_KEY);
  });

  it("streams from the backup when the primary fails before its first token", async () => {
    primary.enqueueReply({ status: 502 }, { status: 502 }, { status: 502 });
    backup.enqueueReply({ content: "Thirty days from delivery." });
    const { client } = makeClient(primary, fallbackEnv(), { cooldowns });
    const tokens: string[] = [];
    const result = await client.stream({ useCase: "generation" }, QUESTION, {}, (token) => void tokens.push(token));
    expect(result.model).to.equal("backup-model");
    expect(tokens.join("")).to.equal("Thirty days from delivery.");
  });

  it("streams from the backup when the primary times out before its first token", async () => {
    const silent = { content: "never sent", silentAfterTokens: 0 };
    primary.enqueueReply(silent, silent, silent);
    backup.enqueueReply({ content: "Thirty days." });
    const { client } = makeClient(primary, { ...fallbackEnv(), LLM_STREAM_IDLE_TIMEOUT_MS: "100" }, { cooldowns });
    const tokens: string[] = [];
    const result = await client.stream({ useCase: "generation" }, QUESTION, {}, (token) => void tokens.push(token));
    expect(result.model).to.equal("backup-model");
    expect(tokens.join("")).to.equal("Thirty days.");
    expect(primary.chatCalls()).to.have.length(3, "each silent attempt timed out and was retried before falling back");
  });

  it("does not restart on the backup a stream that already showed text", async () => {
    primary.enqueueReply({ content: "one two three four five six", cutAfterTokens: 2 });
    const { client } = makeClient(primary, fallbackEnv(), { cooldowns });
    const tokens: string[] = [];
    const error = (await rejection(client.stream({ useCase: "generation" }, QUESTION, {}, (token) => void tokens.push(token)))) as LlmError;
    expect(error.code).to.equal("LLM_UNAVAILABLE");
    expect(error.options.partial).to.equal(true);
    expect(tokens.join("")).to.equal("one two");
    expect(backup.chatCalls()).to.have.length(0);
  });

  it("gives a fallback with tool_calling json the tools in its prompt, and reads its fenced reply into tool calls", async () => {
    primary.failModel("scripted-model", 500);
    backup.enqueueReply({ content: 'Checking.\n```json\n{"name": "list_alerts", "parameters": {"limit": 5}}\n```' });
    const { client } = makeClient(primary, fallbackEnv({ tool_calling: "json" }), { cooldowns });
    const tools = [{ type: "function" as const, function: { name: "list_alerts", description: "Open alerts.", parameters: { type: "object" } } }];
    const tokens: string[] = [];
    const result = await client.stream({ useCase: "admin" }, QUESTION, { tools }, (token) => void tokens.push(token));
    expect(primary.chatCalls()[0]!.body.tools, "the primary keeps native tools").to.have.length(1);
    expect(backup.chatCalls()[0]!.body.tools).to.equal(undefined);
    expect(JSON.stringify(backup.chatCalls()[0]!.body.messages)).to.contain("You can use these tools");
    expect(result.toolCalls).to.have.length(1);
    expect(result.toolCalls[0]).to.include({ name: "list_alerts", arguments: '{"limit":5}' });
    expect(result.content).to.equal("Checking.\n");
    expect(tokens.join("")).to.equal("Checking.\n", "the JSON never reaches the caller's tokens");
  });

  it("never logs or reports a fallback's key, even one without an sk- shape that the provider echoes", async () => {
    const plainKey = "ollama-token-5f4dcc3b5aa765d61d8327deb882cf99";
    const echo = { status: 500, body: { error: { message: `bad key ${plainKey}` } }, headers: { "x-echo": plainKey } };
    primary.failModel("scripted-model", 503);
    backup.enqueueReply(echo, echo, echo);
    const env = { LLM_FALLBACK_PROVIDERS: JSON.stringify([{ base_url: backup.url, api_key: plainKey, model: "backup-model" }]) };
    const { client, lines } = makeClient(primary, env, { cooldowns });
    const error = (await rejection(client.chat({ useCase: "tutor" }, QUESTION))) as LlmError;
    await flushed();
    expect(error.code).to.equal("LLM_UNAVAILABLE");
    expect(backup.chatCalls()[0]!.headers.authorization).to.equal(`Bearer ${plainKey}`);
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)} ${lines.join("")}`).not.to.contain(plainKey);
    expect(lines.join("")).to.contain(`"provider":"127.0.0.1:${backup.port}"`, "a provider without a name is logged by host");
  });

  describe("embeddings", () => {
    const embeddingEnv = () => ({
      EMBEDDING_FALLBACK_PROVIDERS: JSON.stringify([{ name: "backup-embeddings", base_url: backup.url, api_key: BACKUP_KEY }]),
    });

    it("embed on the backup while the primary is down, and go back after the cool-down", async () => {
      primary.failEmbeddings(503);
      const { client } = makeClient(primary, embeddingEnv(), { cooldowns });
      const [vector] = await client.embed(["refund window"], "query");
      expect(vector).to.have.length(384);
      expect(primary.embeddingCalls()).to.have.length(3);
      expect(backup.embeddingCalls()).to.have.length(1);
      expect(backup.embeddingCalls()[0]!.body.model).to.equal("intfloat/multilingual-e5-small", "EMBEDDING_MODEL when the fallback names none");
      expect(backup.embeddingCalls()[0]!.headers.authorization).to.equal(`Bearer ${BACKUP_KEY}`);

      await client.embed(["gift cards"], "passage");
      expect(primary.embeddingCalls()).to.have.length(3, "cooling");
      primary.failEmbeddings(null);
      now += 61_000;
      await client.embed(["gift cards"], "passage");
      expect(primary.embeddingCalls()).to.have.length(4);
      expect(backup.embeddingCalls()).to.have.length(2);
    });

    it("refuses a fallback's vectors of another width (it was down at start-up, so never probed)", async () => {
      primary.failEmbeddings(503);
      backup.setEmbeddingDimensions(768);
      const { client } = makeClient(primary, embeddingEnv(), { cooldowns });
      const error = (await rejection(client.embed(["refund window"], "query"))) as LlmError;
      expect(error.code).to.equal("LLM_CONFIG_ERROR");
      expect(error.message).to.contain("768").and.to.contain("EMBEDDING_DIMENSIONS=384").and.to.contain("EMBEDDING_FALLBACK_PROVIDERS[0].model");
    });

    it("keep chat fallbacks and embedding fallbacks apart", async () => {
      primary.failEmbeddings(503);
      const { client } = makeClient(primary, fallbackEnv(), { cooldowns });
      const error = (await rejection(client.embed(["x"], "query"))) as LlmError;
      expect(error.code).to.equal("LLM_UNAVAILABLE");
      expect(backup.embeddingCalls()).to.have.length(0, "LLM_FALLBACK_PROVIDERS is for chat only");
    });
  });

  describe("the settings", () => {
    it("are refused when not a JSON array of providers, without echoing the value (it holds keys)", () => {
      const bad = (value: string) => {
        try {
          parseConfig(testEnv({ LLM_FALLBACK_PROVIDERS: value }));
        } catch (error) {
          expect(error).to.be.instanceOf(ConfigError);
          return (error as ConfigError).problems.join("\n");
        }
        throw new Error(`accepted ${value}`);
      };
      const notJson = bad(`[{"base_url": "https://x.example/v1", "api_key": "sk-leak-me-123456"`);
      expect(notJson).to.contain("LLM_FALLBACK_PROVIDERS").and.to.contain("not valid JSON");
      expect(notJson).not.to.contain("sk-leak-me");
      expect(bad(`[{"base_url": "not a url"}]`)).to.contain("LLM_FALLBACK_PROVIDERS.0.base_url");
      expect(bad(`[{"base_url": "https://x.example/v1", "apikey": "typo"}]`)).to.contain("apikey");
      expect(bad(`[{"base_url": "https://x.example/v1", "tool_calling": "sometimes"}]`)).to.contain("tool_calling");
      expect(bad(`{"base_url": "https://x.example/v1"}`)).to.contain("LLM_FALLBACK_PROVIDERS");
    });

    it("keep the single-provider settings working unchanged when unset", () => {
      const config = parseConfig(testEnv({ LLM_BASE_URL: "https://one.example/v1", LLM_MODEL: "a,b" }));
      expect(config.llm.LLM_FALLBACK_PROVIDERS).to.equal(undefined);
      expect(config.embedding.EMBEDDING_FALLBACK_PROVIDERS).to.equal(undefined);
      expect(config.llm.LLM_TOOL_CALLING).to.equal("native");
      const parsed = parseConfig(testEnv({ LLM_FALLBACK_PROVIDERS: ` [{"base_url": "https://two.example/v1", "api_key": " sk-x\\n", "model": "m"}] ` }));
      expect(parsed.llm.LLM_FALLBACK_PROVIDERS).to.deep.equal([{ base_url: "https://two.example/v1", api_key: "sk-x", model: "m" }]);
    });
  });
});
