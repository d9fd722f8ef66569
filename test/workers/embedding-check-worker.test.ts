/**
 * A worker process started with a wrong-dimension embedding model refuses to start, naming both
 * dimensions (against the real stack's Redis and migrated Postgres). The check's logic alone is
 * in embedding-check.test.ts.
 */
import { expect } from "chai";
import { spawn } from "node:child_process";
import { type ScriptedLlm, startScriptedLlm } from "../harness/scripted-llm";
import { useStack } from "../support/stack";

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

  it("refuses to start when a fallback embedding provider answers another dimension", async () => {
    const result = await runWorker({
      LLM_BASE_URL: env.LLM_BASE_URL!,
      EMBEDDING_FALLBACK_PROVIDERS: JSON.stringify([{ name: "wide-backup", base_url: wrong.url }]),
    });
    expect(result.code, result.stderr).to.not.equal(0);
    expect(result.stdout).not.to.contain("READY");
    expect(result.stderr).to.contain("EMBEDDING_FALLBACK_PROVIDERS[0]").and.to.contain("wide-backup").and.to.contain("768");
  });
});
