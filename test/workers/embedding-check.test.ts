/**
 * The start-up embedding check: a model whose vectors don't match EMBEDDING_DIMENSIONS (or the
 * database column) stops the worker; an endpoint that is down only warns.
 */
import { expect } from "chai";
import { spawn } from "node:child_process";
import type { Db } from "../../db/knex";
import { findFreePort } from "../../launcher/embedded/child-process";
import { checkEmbeddingDimensions, EmbeddingDimensionError } from "../../workers/embedding-check";
import { type ScriptedLlm, startScriptedLlm } from "../support/scripted-llm";
import { useStack } from "../support/stack";
import { flushed, makeClient, memoryLogger, rejection } from "./llm/helpers";

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
    expect(error.message).to.contain("768").and.to.contain("384").and.to.contain(config.EMBEDDING_MODEL);
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
});

describe("a worker process with a wrong-dimension embedding model", function () {
  this.timeout(120_000);
  let wrong: ScriptedLlm;
  let env: Record<string, string>;

  before(async () => {
    ({ env } = await useStack());
    wrong = await startScriptedLlm();
    wrong.setEmbeddingDimensions(768);
  });
  after(() => wrong?.close());

  function runWorker(extra: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], {
        env: { ...process.env, ...env, LLM_BASE_URL: wrong.url, ...extra },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`worker did not exit; stdout: ${stdout}; stderr: ${stderr}`));
      }, 60_000);
      child.on("error", reject);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it("refuses to start, naming both dimensions", async () => {
    const result = await runWorker({});
    expect(result.code, result.stderr).to.not.equal(0);
    expect(result.stdout).not.to.contain("READY");
    expect(result.stderr).to.contain("768").and.to.contain("384");
    expect(result.stderr).to.contain("EMBEDDING_DIMENSIONS");
    expect(wrong.embeddingCalls().length).to.be.greaterThan(0, "the worker probed the model");
  });

  it("refuses to start when EMBEDDING_DIMENSIONS disagrees with the migrated column", async () => {
    const result = await runWorker({ EMBEDDING_DIMENSIONS: "768" });
    expect(result.code, result.stderr).to.not.equal(0);
    expect(result.stderr).to.contain("EMBEDDING_DIMENSIONS is 768").and.to.contain("vector(384)");
  });
});
