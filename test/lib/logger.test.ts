/**
 * The root logger reads LOG_LEVEL only (lib/logger.ts): a process that needs none of the
 * product's other settings, such as the offline model server, starts and logs even when one of
 * them is invalid, while a bad LOG_LEVEL still fails naming every bad variable.
 */
import { spawn, spawnSync } from "node:child_process";
import { expect } from "chai";
import { waitFor } from "../harness/client";

describe("logger: LOG_LEVEL only", function () {
  this.timeout(30_000);

  it("lets the offline model start and log while an unrelated product setting is invalid", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "offline-model/main.ts"], {
      env: { PATH: process.env.PATH, PORT: "not-a-port", EMBEDDED_LLM_PORT: "0", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    try {
      await waitFor(
        () => {
          if (child.exitCode !== null) throw new Error(`the offline model exited (${child.exitCode}):\n${output}`);
          return output.includes('"msg":"offline LLM server listening"');
        },
        20_000,
        "the offline model's first log line",
      );
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("fails on a bad LOG_LEVEL, naming it and every other bad variable", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "offline-model/main.ts"], {
      env: { PATH: process.env.PATH, PORT: "not-a-port", EMBEDDED_LLM_PORT: "0", LOG_LEVEL: "shouting" },
      encoding: "utf8",
      timeout: 25_000,
    });
    expect(result.status).to.not.equal(0);
    expect(result.stderr).to.include("LOG_LEVEL").and.include("PORT");
  });
});
