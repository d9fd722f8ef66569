/** Configuration: every bad variable reported at once, by name, and the process exits non-zero. */
import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { ConfigError, modelFor, parseConfig } from "../../lib/config";

describe("config", () => {
  it("reports every bad variable at once, by name", () => {
    let caught: unknown;
    try {
      parseConfig({ PORT: "eighty", EMBEDDING_DIMENSIONS: "-3", REDIS_URL: "http://nope", JWT_SECRET: "short" });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(ConfigError);
    const message = (caught as Error).message;
    for (const name of ["PORT", "EMBEDDING_DIMENSIONS", "REDIS_URL", "JWT_SECRET"]) expect(message).to.include(name);
  });

  it("applies defaults and per-use-case model overrides", () => {
    const config = parseConfig({ LLM_MODEL: "base-model", LLM_MODEL_ADMIN: "admin-model", LLM_API_KEY: "  sk-x\n" });
    expect(config.server.PORT).to.equal(3000);
    expect(config.embedding.EMBEDDING_MODEL).to.equal("intfloat/multilingual-e5-small");
    expect(config.embedding.EMBEDDING_DIMENSIONS).to.equal(384);
    expect(config.embedding.embeddingPrefixes).to.equal(true);
    expect(modelFor(config.llm, "admin")).to.equal("admin-model");
    expect(modelFor(config.llm, "generation")).to.equal("base-model");
    expect(parseConfig({ EMBEDDING_MODEL: "text-embedding-3-small" }).embedding.embeddingPrefixes).to.equal(false);
  });

  it("makes the server exit non-zero naming the bad variable", function () {
    this.timeout(30_000);
    const result = spawnSync(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { PATH: process.env.PATH, PORT: "not-a-port", LOG_LEVEL: "shouting" },
      encoding: "utf8",
      timeout: 25_000,
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include("PORT");
    expect(result.stderr).to.include("LOG_LEVEL");
  });
});
