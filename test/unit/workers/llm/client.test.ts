/**
 * LlmClient against the scripted OpenAI-compatible server: retries with backoff and
 * Retry-After, error translation, the fallback chain with its cooldown breaker, streaming
 * and usage rows, and keys that never reach a log line.
 */
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { parseConfig } from "../../../../lib/config";
import { redactSecrets } from "../../../../lib/logger";
import { LlmClient } from "../../../../workers/llm/client";
import { cleanKey } from "../../../../workers/llm/providers";
import { ModelCooldowns } from "../../../../workers/llm/cooldowns";
import { LlmError } from "../../../../workers/llm/errors";
import { type ScriptedLlm, startScriptedLlm } from "../../../harness/scripted-llm";
import { FAST_RETRY, TEST_KEY, flushed, makeClient, memoryLogger, rejection } from "../../../workers/llm/helpers";
import { configWith, testEnv } from "../../../support/tunables";

const QUESTION = [{ role: "user" as const, content: "How many days do I have to return an item?" }];

describe("LlmClient against a scripted provider", function () {
  this.timeout(20_000);
  let llm: ScriptedLlm;

  before(async () => {
    llm = await startScriptedLlm();
  });
  after(() => llm.close());
  afterEach(() => llm.reset());

  describe("retries", () => {
    it("waits out a 429 with Retry-After: 1 and then answers once (default retry timings)", async () => {
      llm.enqueueReply({ status: 429, headers: { "retry-after": "1" } }, { content: "Thirty days." });
      const { client, rows } = makeClient(llm, {}, { retry: undefined });
      const started = performance.now();
      const result = await client.chat({ useCase: "tutor" }, QUESTION);
      const elapsed = performance.now() - started;
      expect(result.content).to.equal("Thirty days.");
      expect(llm.chatCalls()).to.have.length(2);
      expect(elapsed).to.be.at.least(900).and.below(3_000);
      expect(rows).to.have.length(1, "one usage row for the one answer");
    });

    it("turns three 500s into LLM_UNAVAILABLE after exactly 3 requests", async () => {
      llm.enqueueReply({ status: 500 }, { status: 500 }, { status: 500 }, { content: "too late" });
      const { client, rows } = makeClient(llm);
      const error = await rejection(client.chat({ useCase: "tutor" }, QUESTION));
      expect(error).to.be.instanceOf(LlmError);
      expect((error as LlmError).code).to.equal("LLM_UNAVAILABLE");
      expect(llm.chatCalls()).to.have.length(3);
      expect(rows).to.have.length(0);
    });

    it("fails a 401 at once as LLM_CONFIG_ERROR naming LLM_API_KEY, without the provider's text", async () => {
      const providerText = "Incorrect API key provided: sk-unit***cdef. You can find your API key at https://example.invalid/keys.";
      llm.enqueueReply(
        { status: 401, body: { error: { message: providerText, type: "invalid_request_error", code: "invalid_api_key" } } },
        { content: "never asked" },
      );
      const { client } = makeClient(llm);
      const error = (await rejection(client.chat({ useCase: "tutor" }, QUESTION))) as LlmError;
      expect(error).to.be.instanceOf(LlmError);
      expect(error.code).to.equal("LLM_CONFIG_ERROR");
      expect(llm.chatCalls()).to.have.length(1, "no retry after a 401");
      expect(error.message).to.contain("LLM_API_KEY");
      expect(error.message).not.to.contain("Incorrect API key");
      expect(error.message).not.to.contain("sk-unit");
    });

    it("fails a 400 (the request itself refused) once as LLM_CONFIG_ERROR, without asking again", async () => {
      llm.enqueueReply({ status: 400 });
      const { client } = makeClient(llm);
      const error = (await rejection(client.chat({ useCase: "tutor" }, QUESTION))) as LlmError;
      expect(error.code).to.equal("LLM_CONFIG_ERROR");
      expect(llm.chatCalls()).to.have.length(1);
    });

    it("names EMBEDDING_API_KEY when the embedding endpoint rejects the key", async () => {
      llm.failEmbeddings(401);
      const { client } = makeClient(llm);
      const error = (await rejection(client.embed(["x"], "query"))) as LlmError;
      expect(error.code).to.equal("LLM_CONFIG_ERROR");
      expect(error.message).to.contain("EMBEDDING_API_KEY");
      expect(llm.embeddingCalls()).to.have.length(1);
    });

    it("retries a 503 carrying Retry-After and honours it", async () => {
      llm.enqueueReply({ status: 503, headers: { "retry-after-ms": "300" } }, { content: "ok" });
      const { client } = makeClient(llm, {}, { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 } });
      const started = performance.now();
      expect((await client.chat({ useCase: "tutor" }, QUESTION)).content).to.equal("ok");
      expect(performance.now() - started).to.be.at.least(280);
    });
  });

  describe("the fallback chain and the cooldown breaker", () => {
    it("stops at a refused key instead of trying every model with it", async () => {
      llm.failModel("first-model", 401);
      const { client } = makeClient(llm, { LLM_MODEL: "first-model,second-model" });
      const error = await rejection(client.chat({ useCase: "tutor" }, QUESTION));
      expect(error.code).to.equal("LLM_CONFIG_ERROR");
      expect(llm.chatCalls().map((request) => request.body.model)).to.deep.equal(["first-model"]);
    });

    for (const status of [404, 500]) {
      it(`skips a dead first model (HTTP ${status}) and, on the next call, does not ask it again`, async () => {
        llm.failModel("dead-model", status);
        const { client, rows } = makeClient(llm, { LLM_MODEL: "dead-model, good-model" });
        expect(client.modelChain("tutor")).to.deep.equal(["dead-model", "good-model"]);

        const first = await client.chat({ useCase: "tutor" }, QUESTION);
        expect(first.model).to.equal("good-model");
        const deadCalls = llm.chatCalls().filter((request) => request.body.model === "dead-model").length;
        expect(deadCalls).to.equal(status === 404 ? 1 : 3, "404 is not retried; 500 is retried before falling through");

        const before = llm.chatCalls().length;
        const second = await client.chat({ useCase: "tutor" }, QUESTION);
        expect(second.model).to.equal("good-model");
        const later = llm.chatCalls().slice(before);
        expect(later.map((request) => request.body.model)).to.deep.equal(["good-model"]);
        expect(rows.map((row) => row.model)).to.deep.equal(["good-model", "good-model"]);
      });
    }

    it("shares the cooldown between clients given the same breaker", async () => {
      llm.failModel("dead-model", 404);
      const shared = new ModelCooldowns();
      await makeClient(llm, { LLM_MODEL: "dead-model,good-model" }, { cooldowns: shared }).client.chat({ useCase: "tutor" }, QUESTION);
      llm.reset();
      await makeClient(llm, { LLM_MODEL: "dead-model,good-model" }, { cooldowns: shared }).client.chat({ useCase: "tutor" }, QUESTION);
      expect(llm.chatCalls().map((request) => request.body.model)).to.deep.equal(["good-model"]);
    });

    it("keeps an embeddings failure off the chat model's cool-down, even for a model of the same name on the same server", async () => {
      llm.failEmbeddings(404);
      const { client } = makeClient(llm, { LLM_MODEL: "shared-name,other-model", EMBEDDING_MODEL: "shared-name" });
      await rejection(client.embed(["x"], "passage"));
      llm.failEmbeddings(null);
      await client.chat({ useCase: "tutor" }, QUESTION);
      expect(llm.chatCalls().map((request) => request.body.model)).to.deep.equal(["shared-name"]);
    });

    it("when every model is cooling, still tries the one that recovers first", async () => {
      llm.failModel("dead-model", 404);
      llm.failModel("good-model", 500);
      const { client } = makeClient(llm, { LLM_MODEL: "dead-model,good-model" });
      const error = (await rejection(client.chat({ useCase: "tutor" }, QUESTION))) as LlmError;
      expect(error.code).to.equal("LLM_UNAVAILABLE", "the last model's fault is reported");
      llm.reset();
      const result = await client.chat({ useCase: "tutor" }, QUESTION);
      expect(result.model).to.equal("good-model", "good-model cools for a minute, dead-model for an hour");
      expect(llm.chatCalls()).to.have.length(1);
    });

    it("does not fall through to the next model after a stream broke mid-answer", async () => {
      llm.enqueueReply({ content: "one two three four five six seven eight nine ten", cutAfterTokens: 3 });
      const { client } = makeClient(llm, { LLM_MODEL: "first-model,second-model" });
      const tokens: string[] = [];
      const error = (await rejection(client.stream({ useCase: "generation" }, QUESTION, {}, (token) => void tokens.push(token)))) as LlmError;
      expect(error).to.be.instanceOf(LlmError);
      expect(error.code).to.equal("LLM_UNAVAILABLE");
      expect(error.options.partial).to.equal(true);
      expect(tokens.join("")).to.equal("one two three");
      expect(llm.chatCalls().map((request) => request.body.model)).to.deep.equal(["first-model"]);
    });

    it("retries a stream that broke before its first token", async () => {
      llm.enqueueReply({ content: "never seen", cutAfterTokens: 0 }, { content: "Thirty days." });
      const { client, rows } = makeClient(llm);
      const tokens: string[] = [];
      const result = await client.stream({ useCase: "generation" }, QUESTION, {}, (token) => void tokens.push(token));
      expect(result.content).to.equal("Thirty days.");
      expect(tokens.join("")).to.equal("Thirty days.");
      expect(llm.chatCalls()).to.have.length(2);
      expect(rows).to.have.length(1);
    });
  });

  describe("usage rows", () => {
    it("records a streamed call with streamed = true, its use case, caller and provider usage", async () => {
      llm.enqueueReply({ content: "Returns are accepted within thirty days of purchase." });
      const { client, rows } = makeClient(llm);
      const result = await client.stream({ useCase: "generation", orgId: "org-1", userId: "user-1" }, QUESTION, { maxTokens: 100 }, () => undefined);
      expect(llm.chatCalls()[0]?.body).to.include({ stream: true, model: "scripted-model" });
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ orgId: "org-1", userId: "user-1", useCase: "generation", model: "scripted-model", streamed: true });
      expect(rows[0]!.completionTokens).to.equal(result.completionTokens).and.to.be.greaterThan(0);
      expect(rows[0]!.promptTokens).to.be.greaterThan(0);
    });

    it("records a non-streamed call with streamed = false", async () => {
      llm.enqueueReply({ content: "in_course" });
      const { client, rows } = makeClient(llm);
      await client.chat({ useCase: "tutor", orgId: "org-1" }, QUESTION);
      expect(llm.chatCalls()[0]?.body.stream).to.not.equal(true);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ orgId: "org-1", userId: null, useCase: "tutor", streamed: false });
    });

    it("records an embedding call with a caller as `embedding:<the model that answered>` (the offline stand-in names itself)", async () => {
      const { client, rows } = makeClient(llm, { EMBEDDING_MODEL: "text-embedding-3-small", EMBEDDING_DIMENSIONS: "1536" });
      const vectors = await client.embed(["refund window", "gift cards"], "query", { orgId: "org-1", userId: "user-1" });
      expect(vectors).to.have.length(2);
      expect(vectors[0]).to.have.length(384, "the scripted server's default");
      expect(llm.embeddingCalls()[0]?.body.input).to.deep.equal(["refund window", "gift cards"], "no E5 prefixes for OpenAI models");
      expect(rows).to.have.length(1);
      expect(llm.embeddingCalls()[0]?.body.model).to.equal("text-embedding-3-small");
      // The scripted server answers with the offline model's hashed vectors, and says so; a provider's own name is priced (context-window.test.ts).
      expect(rows[0]).to.include({ model: "embedding:offline-hashed-bow-384", useCase: "tutor", orgId: "org-1", streamed: false, completionTokens: 0 });
      expect(rows[0]!.promptTokens).to.be.greaterThan(0);
      llm.reset();
      await client.embed(["x"], "query");
      expect(rows).to.have.length(1, "no caller, no row (start-up probes)");
    });

    it("adds E5 prefixes for E5 models only", async () => {
      const { client } = makeClient(llm);
      await client.embed(["refund window"], "query");
      await client.embed(["Returns are accepted for 30 days."], "passage");
      expect(llm.embeddingCalls().map((request) => request.body.input)).to.deep.equal([
        ["query: refund window"],
        ["passage: Returns are accepted for 30 days."],
      ]);
      expect(await client.embed([], "query")).to.deep.equal([]);
      expect(llm.embeddingCalls()).to.have.length(2, "an empty batch makes no request");
    });

    it("does not fail the call when the usage sink throws", async () => {
      llm.enqueueReply({ content: "fine" });
      const { client, lines } = makeClient(llm, {}, { usage: () => Promise.reject(new Error("db down")) });
      expect((await client.chat({ useCase: "tutor" }, QUESTION)).content).to.equal("fine");
      await flushed();
      expect(lines.join("")).to.contain("could not record LLM usage");
    });
  });

  describe("keys", () => {
    it("cleanKey strips stray whitespace and newlines", () => {
      expect(cleanKey(" sk-abc\n")).to.equal("sk-abc");
      expect(cleanKey("sk-abc\r\n")).to.equal("sk-abc");
      expect(cleanKey("\tsk-a bc ")).to.equal("sk-abc");
      expect(cleanKey(undefined)).to.equal("not-needed");
      expect(cleanKey("  \n")).to.equal("not-needed");
    });

    it("sends exactly `Authorization: Bearer sk-abc` for a key pasted with whitespace", async () => {
      // Through the config (which trims) and straight into the client (which must clean on its own).
      const fromEnv = parseConfig(testEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: " sk-abc\n", LLM_MODEL: "scripted-model" }));
      const raw = configWith(fromEnv, { LLM_API_KEY: " sk-abc\n", EMBEDDING_API_KEY: "\tsk-emb \n" });
      for (const config of [fromEnv, raw]) {
        llm.reset();
        const client = new LlmClient(config, { retry: FAST_RETRY, cooldowns: new ModelCooldowns() });
        await client.chat({ useCase: "tutor" }, QUESTION);
        await client.stream({ useCase: "generation" }, QUESTION, {}, () => undefined);
        expect(llm.chatCalls().map((request) => request.headers.authorization)).to.deep.equal(["Bearer sk-abc", "Bearer sk-abc"]);
      }
      llm.reset();
      await new LlmClient(raw, { retry: FAST_RETRY, cooldowns: new ModelCooldowns() }).embed(["x"], "passage");
      expect(llm.embeddingCalls()[0]?.headers.authorization).to.equal("Bearer sk-emb");
    });

    it("never writes the key to a log line, even when the provider echoes it back", async () => {
      const echo = (status: number) => ({
        status,
        body: { error: { message: `Invalid Authorization header: Bearer ${TEST_KEY} (key ${TEST_KEY})`, type: "invalid_request_error", code: null } },
        headers: { "x-echo-authorization": `Bearer ${TEST_KEY}` },
      });
      const { log, lines } = memoryLogger();
      const { client } = makeClient(llm, { LLM_MODEL: "first-model,second-model" }, { log });
      llm.enqueueReply(echo(500), echo(500), echo(500), echo(401));
      const chatError = (await rejection(client.chat({ useCase: "tutor" }, QUESTION))) as LlmError;
      llm.enqueueReply(echo(429), echo(400), echo(400));
      const streamError = (await rejection(client.stream({ useCase: "generation" }, QUESTION, {}, () => undefined))) as LlmError;
      llm.failEmbeddings(403);
      const embedError = (await rejection(client.embed(["x"], "query"))) as LlmError;
      await flushed();

      expect(llm.requests.length).to.equal(7, "3×500 and a 401 for chat; a 429 and a 400 for the stream; one embedding");
      expect(lines.length).to.be.greaterThan(0, "failures are logged");
      for (const error of [chatError, streamError, embedError]) {
        expect(error).to.be.instanceOf(LlmError);
        expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.to.contain(TEST_KEY);
      }
      const output = lines.join("");
      expect(output).not.to.contain(TEST_KEY);
      expect(output).not.to.contain("Invalid Authorization header");
    });

    it("the product's root logger never prints the key when provider errors echo it (child process, LOG_LEVEL=trace)", function () {
      this.timeout(30_000);
      const probe = spawnSync(process.execPath, ["--import", "tsx", "test/workers/llm/fixtures/log-probe.ts"], {
        env: { ...process.env, LOG_LEVEL: "trace", PROBE_KEY: TEST_KEY },
        encoding: "utf8",
        timeout: 25_000,
      });
      expect(probe.status, probe.stderr).to.equal(0);
      expect(probe.stdout).to.contain("PROBE DONE");
      const lines = probe.stdout.split("\n").filter((line) => line.startsWith("{"));
      expect(lines.some((line) => line.includes("model call failed"))).to.equal(true, "retries are logged");
      expect(lines.some((line) => line.includes("job attempt failed"))).to.equal(true);
      expect(lines.some((line) => line.includes("provider said"))).to.equal(true);
      expect(probe.stdout).not.to.contain(TEST_KEY);
      expect(probe.stderr).not.to.contain(TEST_KEY);
    });

    it("redactSecrets scrubs bearer tokens and sk- keys from any string", () => {
      expect(redactSecrets(`401 Incorrect API key provided: Bearer ${TEST_KEY}`)).to.equal("401 Incorrect API key provided: Bearer [redacted]");
      expect(redactSecrets(`key=${TEST_KEY}; retry`)).to.equal("key=sk-[redacted]; retry");
      expect(redactSecrets("authorization: Bearer abc.def-ghi_jkl")).to.equal("authorization: Bearer [redacted]");
      expect(redactSecrets("a task-list with no secrets")).to.equal("a task-list with no secrets");
    });
  });
});
