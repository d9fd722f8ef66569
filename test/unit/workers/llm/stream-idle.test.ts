/**
 * A model stream that goes quiet, and a stream the caller cancels: neither may hold a turn
 * (or a worker slot) past the idle timeout, and a cancel is not a model fault.
 */
import { expect } from "chai";
import { StreamCancelled } from "../../../../workers/llm/stream-watch";
import { LlmError } from "../../../../workers/llm/errors";
import { type ScriptedLlm, startScriptedLlm } from "../../../harness/scripted-llm";
import { makeClient, rejection } from "../../../workers/llm/helpers";

const QUESTION = [{ role: "user" as const, content: "How many days do I have to return an item?" }];

describe("LlmClient streams that stop", function () {
  this.timeout(20_000);
  let llm: ScriptedLlm;

  before(async () => {
    llm = await startScriptedLlm();
  });
  after(() => llm.close());
  afterEach(() => llm.reset());

  it("abandons a stream that goes silent after text was shown: LLM_UNAVAILABLE, partial, not retried", async () => {
    llm.enqueueReply({ content: "You have thirty days to return it.", silentAfterTokens: 2 }, { content: "never asked" });
    const { client, rows, cooldowns } = makeClient(llm, { LLM_STREAM_IDLE_TIMEOUT_MS: "300" });
    const tokens: string[] = [];
    const started = performance.now();
    const error = await rejection(client.stream({ useCase: "tutor" }, QUESTION, {}, (token) => void tokens.push(token)));
    const elapsed = performance.now() - started;
    expect(error).to.be.instanceOf(LlmError);
    expect((error as LlmError).code).to.equal("LLM_UNAVAILABLE");
    expect((error as LlmError).options.partial).to.equal(true);
    expect(tokens.join("")).to.have.length.greaterThan(0);
    expect(elapsed).to.be.below(5_000, "ended by the idle timeout, not by a socket timeout");
    expect(llm.chatCalls()).to.have.length(1, "text was shown: the stream is not restarted");
    expect(rows).to.have.length(0);
    expect(cooldowns.isCooling(`chat|${llm.url}|scripted-model`)).to.equal(true, "a silent model is tripped like a dropped one");
  });

  it("lets a stream run longer than the idle timeout while every gap is shorter: each read re-arms it", async () => {
    llm.setTokenDelay(60);
    llm.enqueueReply({ content: "You have thirty days to return it, counted from the day it was delivered." });
    const { client } = makeClient(llm, { LLM_STREAM_IDLE_TIMEOUT_MS: "300" });
    const tokens: string[] = [];
    const started = performance.now();
    const result = await client.stream({ useCase: "tutor" }, QUESTION, {}, (token) => void tokens.push(token));
    expect(performance.now() - started).to.be.above(600, "the stream outlasted the idle timeout");
    expect(result.content).to.equal("You have thirty days to return it, counted from the day it was delivered.");
    expect(tokens.join("")).to.equal(result.content);
    expect(llm.chatCalls()).to.have.length(1);
  });

  it("retries a stream that goes silent before its first token, and answers", async () => {
    llm.enqueueReply({ content: "ignored", silentAfterTokens: 0 }, { content: "Thirty days." });
    const { client } = makeClient(llm, { LLM_STREAM_IDLE_TIMEOUT_MS: "300" });
    const tokens: string[] = [];
    const result = await client.stream({ useCase: "tutor" }, QUESTION, {}, (token) => void tokens.push(token));
    expect(result.content).to.equal("Thirty days.");
    expect(tokens.join("")).to.equal("Thirty days.");
    expect(llm.chatCalls()).to.have.length(2);
  });

  it("stops at once when the caller aborts, keeping the text so far, with no retry and no cooldown", async () => {
    llm.setTokenDelay(50);
    const { client, cooldowns } = makeClient(llm);
    const controller = new AbortController();
    const tokens: string[] = [];
    const streaming = client.stream({ useCase: "tutor" }, QUESTION, { signal: controller.signal }, (token) => {
      tokens.push(token);
      if (tokens.length === 3) controller.abort();
    });
    const started = performance.now();
    const error = await rejection(streaming);
    expect(error).to.be.instanceOf(StreamCancelled);
    expect((error as StreamCancelled).partialContent).to.equal(tokens.join(""));
    expect(performance.now() - started).to.be.below(2_000);
    expect(llm.chatCalls()).to.have.length(1);
    expect(cooldowns.isCooling(`chat|${llm.url}|scripted-model`)).to.equal(false, "a cancel is not the model's fault");
  });

  it("refuses to start when the signal is already aborted", async () => {
    const { client } = makeClient(llm);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(client.stream({ useCase: "tutor" }, QUESTION, { signal: controller.signal }, () => undefined));
    expect(error).to.be.instanceOf(StreamCancelled);
    expect(llm.chatCalls()).to.have.length(0);
  });
});
