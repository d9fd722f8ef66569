/**
 * The start-up embedding check: a model whose vectors don't match EMBEDDING_DIMENSIONS (or the
 * database column) stops the worker; an endpoint that is down only warns. Logic: no stack (the
 * worker process that refuses to start is in embedding-check-worker.test.ts).
 */
import { expect } from "chai";
import type { Db } from "../../../db/knex";
import { findFreePort } from "../../../launcher/embedded/child-process";
import { checkEmbeddingDimensions, EmbeddingDimensionError } from "../../../workers/embedding-check";
import { type ScriptedLlm, startScriptedLlm } from "../../harness/scripted-llm";
import { flushed, makeClient, memoryLogger, rejection } from "../../workers/llm/helpers";

/** A stand-in for the database that reports a vector column of `dims` (null: no table yet). */
const dbWithColumn = (dims: number | null) => ({ raw: async () => ({ rows: dims === null ? [] : [{ dims }] }) }) as unknown as Db;

describe("checkEmbeddingDimensions", function () {
  this.timeout(20_000);
  let llm: ScriptedLlm;

  before(async () => {
    llm = await startScriptedLlm();
  });
  after(() => llm.close());
  afterEach(() => llm.reset());

  it("passes when the model, the setting and the column agree", async () => {
    const { client, config } = makeClient(llm);
    const { log, lines } = memoryLogger();
    await checkEmbeddingDimensions(config, dbWithColumn(384), client, log);
    expect(llm.embeddingCalls()).to.have.length(1, "the model is probed once");
    expect(lines.filter((line) => line.includes('"level":40'))).to.deep.equal([]);
  });

  it("refuses a model returning 768 dimensions when 384 are configured, naming both", async () => {
    llm.setEmbeddingDimensions(768);
    const { client, config } = makeClient(llm);
    const error = await rejection(checkEmbeddingDimensions(config, dbWithColumn(384), client, memoryLogger().log));
    expect(error).to.be.instanceOf(EmbeddingDimensionError);
    expect(error.message).to.contain("768").and.to.contain("384").and.to.contain(config.embedding.EMBEDDING_MODEL);
  });

  it("refuses a setting that disagrees with the database column before asking the model", async () => {
    const { client, config } = makeClient(llm, { EMBEDDING_DIMENSIONS: "768" });
    const error = await rejection(checkEmbeddingDimensions(config, dbWithColumn(384), client, memoryLogger().log));
    expect(error).to.be.instanceOf(EmbeddingDimensionError);
    expect(error.message).to.contain("EMBEDDING_DIMENSIONS is 768").and.to.contain("vector(384)");
    expect(llm.embeddingCalls()).to.have.length(0);
  });

  it("only warns when the embedding endpoint is unreachable", async () => {
    const closedPort = await findFreePort();
    const { client, config } = makeClient(llm, { EMBEDDING_BASE_URL: `http://127.0.0.1:${closedPort}/v1` });
    const { log, lines } = memoryLogger();
    await checkEmbeddingDimensions(config, dbWithColumn(384), client, log);
    await flushed();
    const warning = lines.find((line) => line.includes("embedding endpoint unreachable"));
    expect(warning, lines.join("")).to.be.a("string");
    expect(JSON.parse(warning!).level).to.equal(40);
    expect(llm.embeddingCalls()).to.have.length(0);
  });

  it("only warns when the embedding endpoint answers 503", async () => {
    llm.failEmbeddings(503);
    const { client, config } = makeClient(llm);
    const { log, lines } = memoryLogger();
    await checkEmbeddingDimensions(config, dbWithColumn(null), client, log);
    await flushed();
    expect(lines.some((line) => line.includes("embedding endpoint unreachable"))).to.equal(true);
    expect(llm.embeddingCalls()).to.have.length(3, "retried like any transient fault");
  });

  describe("fallback embedding providers", () => {
    let other: ScriptedLlm;
    before(async () => {
      other = await startScriptedLlm();
    });
    after(() => other.close());
    afterEach(() => other.reset());

    const withFallback = (extra: Record<string, string> = {}) => ({
      EMBEDDING_FALLBACK_PROVIDERS: JSON.stringify([{ name: "backup", base_url: other.url, api_key: "sk-fallback-secret-abcdef123456", ...extra }]),
    });

    it("probes each fallback on its own and passes when all answer the configured width", async () => {
      const { client, config } = makeClient(llm, withFallback());
      const { log, lines } = memoryLogger();
      await checkEmbeddingDimensions(config, dbWithColumn(384), client, log);
      expect(llm.embeddingCalls()).to.have.length(1);
      expect(other.embeddingCalls()).to.have.length(1, "the fallback is probed too, though the primary answered");
      await flushed();
      expect(lines.filter((line) => line.includes('"level":40'))).to.deep.equal([]);
    });

    it("refuses a fallback of another dimension, naming it, its width and the setting", async () => {
      other.setEmbeddingDimensions(768);
      const { client, config } = makeClient(llm, withFallback());
      const error = await rejection(checkEmbeddingDimensions(config, dbWithColumn(384), client, memoryLogger().log));
      expect(error).to.be.instanceOf(EmbeddingDimensionError);
      expect(error.message).to.contain("EMBEDDING_FALLBACK_PROVIDERS[0]").and.to.contain("backup").and.to.contain("768").and.to.contain("384");
      expect(error.message).not.to.contain("sk-fallback-secret");
    });

    it("only warns when a fallback is unreachable, and warns about another model of the same width", async () => {
      const closedPort = await findFreePort();
      const { client, config } = makeClient(llm, {
        EMBEDDING_FALLBACK_PROVIDERS: JSON.stringify([{ base_url: `http://127.0.0.1:${closedPort}/v1` }, { base_url: other.url, model: "another-384-model" }]),
      });
      const { log, lines } = memoryLogger();
      await checkEmbeddingDimensions(config, dbWithColumn(384), client, log);
      await flushed();
      expect(lines.some((line) => line.includes("embedding endpoint unreachable") && line.includes(`127.0.0.1:${closedPort}`))).to.equal(true);
      expect(lines.some((line) => line.includes("another model of the same width"))).to.equal(true);
    });
  });
});
