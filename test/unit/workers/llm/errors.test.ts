/** classifyFault and toLlmError: which provider failures are retried, and what the caller sees. */
import { expect } from "chai";
import { UnrecoverableError } from "bullmq";
import OpenAI from "openai";
import { classifyFault, LlmError, toLlmError } from "../../../../workers/llm/errors";
import { describeFailure, TurnLostError, unrecoverableIfConfig } from "../../../../workers/turns/stage-failure";

const apiError = (status: number, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, { error: { message: "provider text with sk-leaky-0123456789" } }, undefined, new Headers(headers));

describe("classifyFault", () => {
  it("treats connection errors, timeouts and dropped streams as transient", () => {
    expect(classifyFault(new OpenAI.APIConnectionError({ message: "connect ECONNREFUSED" }))).to.deep.equal({ kind: "transient" });
    expect(classifyFault(new OpenAI.APIConnectionTimeoutError())).to.deep.equal({ kind: "transient" });
    expect(classifyFault(new TypeError("terminated"))).to.deep.equal({ kind: "transient" });
  });

  it("treats 5xx, 408 and 409 as transient, keeping a Retry-After", () => {
    expect(classifyFault(apiError(500))).to.deep.include({ kind: "transient", status: 500 });
    expect(classifyFault(apiError(502))).to.deep.include({ kind: "transient", status: 502 });
    expect(classifyFault(apiError(503, { "retry-after": "7" }))).to.deep.include({ kind: "transient", status: 503, retryAfterMs: 7_000 });
    expect(classifyFault(apiError(408)).kind).to.equal("transient");
    expect(classifyFault(apiError(409)).kind).to.equal("transient");
  });

  it("reads 429's Retry-After in seconds, milliseconds or as an HTTP date", () => {
    expect(classifyFault(apiError(429, { "retry-after": "2" }))).to.deep.equal({ kind: "rate_limited", status: 429, retryAfterMs: 2_000 });
    expect(classifyFault(apiError(429, { "retry-after-ms": "250", "retry-after": "9" })).retryAfterMs).to.equal(250);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = classifyFault(apiError(429, { "retry-after": inTenSeconds })).retryAfterMs!;
    expect(fromDate).to.be.within(8_000, 10_000);
    expect(classifyFault(apiError(429))).to.deep.equal({ kind: "rate_limited", status: 429, retryAfterMs: undefined });
    expect(classifyFault(apiError(429, { "retry-after": "soon" })).retryAfterMs).to.equal(undefined);
  });

  it("treats 401 and 403 as auth, 404 as not found and other 4xx as rejected", () => {
    expect(classifyFault(apiError(401))).to.deep.equal({ kind: "auth", status: 401 });
    expect(classifyFault(apiError(403))).to.deep.equal({ kind: "auth", status: 403 });
    expect(classifyFault(apiError(404))).to.deep.equal({ kind: "not_found", status: 404 });
    expect(classifyFault(apiError(400))).to.deep.equal({ kind: "rejected", status: 400 });
    expect(classifyFault(apiError(422))).to.deep.equal({ kind: "rejected", status: 422 });
  });
});

describe("toLlmError", () => {
  const context = { variable: "LLM_MODEL_GENERATION", model: "gpt-4o-mini" };

  it("maps each fault to one of three codes with a hint", () => {
    const cases = [
      [{ kind: "transient" }, "LLM_UNAVAILABLE"],
      [{ kind: "rate_limited", status: 429, retryAfterMs: 1_500 }, "LLM_RATE_LIMITED"],
      [{ kind: "auth", status: 401 }, "LLM_CONFIG_ERROR"],
      [{ kind: "not_found", status: 404 }, "LLM_CONFIG_ERROR"],
      [{ kind: "rejected", status: 400 }, "LLM_CONFIG_ERROR"],
    ] as const;
    for (const [fault, code] of cases) {
      const error = toLlmError(fault, context);
      expect(error, fault.kind).to.be.instanceOf(LlmError);
      expect(error.code, fault.kind).to.equal(code);
      expect(error.options.recoveryHint, fault.kind).to.be.a("string").and.not.be.empty;
    }
  });

  it("rounds Retry-After up to whole seconds (at least 1; a minute when unknown)", () => {
    expect(toLlmError({ kind: "rate_limited", retryAfterMs: 1_500 }, context).options.retryAfterSeconds).to.equal(2);
    expect(toLlmError({ kind: "rate_limited", retryAfterMs: 0 }, context).options.retryAfterSeconds).to.equal(1);
    expect(toLlmError({ kind: "rate_limited" }, context).options.retryAfterSeconds).to.equal(60);
  });

  it("names the variable to fix", () => {
    expect(toLlmError({ kind: "auth" }, context).message).to.contain("LLM_API_KEY");
    expect(toLlmError({ kind: "auth" }, { variable: "EMBEDDING_MODEL", model: "e5" }).message).to.contain("EMBEDDING_API_KEY");
    const notFound = toLlmError({ kind: "not_found" }, context).message;
    expect(notFound).to.contain("LLM_MODEL_GENERATION").and.to.contain('"gpt-4o-mini"');
  });

  it("carries partial through", () => {
    expect(toLlmError({ kind: "transient" }, { ...context, partial: true }).options.partial).to.equal(true);
    expect(toLlmError({ kind: "transient" }, context).options.partial).to.equal(false);
  });
});

describe("stage failures as the client sees them", () => {
  it("a configuration error stops retries but still reaches the client as LLM_CONFIG_ERROR", () => {
    const config = new LlmError("LLM_CONFIG_ERROR", "The language model rejected our credentials; check LLM_API_KEY.", { recoveryHint: "fix the key" });
    const stopped = unrecoverableIfConfig(config);
    expect(stopped).to.be.instanceOf(UnrecoverableError);
    expect(describeFailure(stopped)).to.deep.include({ code: "LLM_CONFIG_ERROR", message: config.message, recoveryHint: "fix the key" });
  });

  it("passes other errors through unchanged", () => {
    const unavailable = new LlmError("LLM_UNAVAILABLE", "down");
    expect(unrecoverableIfConfig(unavailable)).to.equal(unavailable);
    const limited = new LlmError("LLM_RATE_LIMITED", "slow down", { retryAfterSeconds: 5 });
    expect(describeFailure(limited)).to.deep.include({ code: "LLM_RATE_LIMITED", retryAfter: 5 });
    expect(describeFailure(new Error("db exploded: password=hunter2"))).to.deep.include({
      code: "INTERNAL_ERROR",
      message: "The tutor could not finish this answer.",
    });
  });

  it("words an admin turn's failure for the assistant, not the tutor", () => {
    expect(describeFailure(new Error("boom"), "admin")).to.deep.include({ code: "INTERNAL_ERROR", message: "The assistant could not finish this answer." });
  });

  it("words a failure in the language of the turn (the catalog's five), English for any other", () => {
    expect(describeFailure(new Error("boom"), "tutor", "fr")).to.deep.include({
      code: "INTERNAL_ERROR",
      message: "Le tuteur n'a pas pu terminer cette réponse.",
      recoveryHint: "Envoie le message à nouveau.",
    });
    expect(describeFailure(new TurnLostError(90_000), "tutor", "de")).to.deep.include({
      code: "TURN_LOST",
      message: "Diese Antwort ging verloren, bevor sie fertig war.",
    });
    expect(describeFailure(new Error("boom"), "admin", "pt").message).to.equal("O assistente não conseguiu terminar esta resposta.");
    expect(describeFailure(new Error("boom"), "admin", "es").message).to.equal("El asistente no pudo terminar esta respuesta.");
    expect(describeFailure(new Error("boom"), "tutor", "nl").message).to.equal("The tutor could not finish this answer.");
  });
});
