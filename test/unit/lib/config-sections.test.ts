/**
 * The configuration composed from sections: each module's settings arrive under its own name,
 * tunables are constants that the environment cannot change, and tests reach them only through
 * overrides (in-process) or SKILLNET_TEST_TUNABLES under NODE_ENV=test (spawned processes).
 */
import { expect } from "chai";
import { ConfigError, parseConfig, retiredVariablesIn, SECTIONS, warnRetiredVariables } from "../../../lib/config";

const problemsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe("config sections", () => {
  it("gives each module its own section, with no name in two sections", () => {
    const config = parseConfig({ DATABASE_URL: "postgres://db/app", WORKER_QUEUES: "tutor-generate:3" });
    expect(config.database.DATABASE_URL).to.equal("postgres://db/app");
    expect(config.workers.WORKER_QUEUES).to.equal("tutor-generate:3");
    expect(config.retrieval.RETRIEVAL_VECTOR_WEIGHT).to.equal(0.6);
    const names = Object.values(SECTIONS).flatMap((section) => [...Object.keys(section.environment.shape), ...Object.keys(section.tunables.shape)]);
    expect(names.length, "a setting is declared in two sections").to.equal(new Set(names).size);
  });

  it("ignores a tunable in a deployment's environment, and names it among the leftovers to log", () => {
    const env = { RETRIEVAL_VECTOR_WEIGHT: "0.9", ADMIN_MAX_TOOL_ROUNDS: "9", TRUST_PROXY_HOPS: "2" };
    const config = parseConfig(env);
    expect(config.retrieval.RETRIEVAL_VECTOR_WEIGHT).to.equal(0.6);
    expect(config.admin.ADMIN_MAX_TOOL_ROUNDS).to.equal(5);
    expect(retiredVariablesIn(env)).to.have.members(["RETRIEVAL_VECTOR_WEIGHT", "ADMIN_MAX_TOOL_ROUNDS", "TRUST_PROXY_HOPS"]);
    const warned: unknown[] = [];
    warnRetiredVariables({ warn: (...args: unknown[]) => warned.push(args) }, env);
    warnRetiredVariables({ warn: (...args: unknown[]) => warned.push(args) }, { PORT: "3000" });
    expect(warned, "one line for the leftovers, none for a clean environment").to.have.length(1);
    expect(JSON.stringify(warned[0])).to.include("TRUST_PROXY_HOPS").and.include("settings-removed-in-the-settings-split");
  });

  it("refuses a tunable set as a variable in a test, so a test cannot silently run on the default", () => {
    const problems = problemsOf(() => parseConfig({ NODE_ENV: "test", WORKER_LOCK_DURATION_MS: "1000" }));
    expect(problems.join("\n")).to.include("WORKER_LOCK_DURATION_MS: is not an environment variable any more");
  });

  it("takes tunables from overrides, and from SKILLNET_TEST_TUNABLES only under NODE_ENV=test", () => {
    expect(parseConfig({}, { overrides: { WORKER_LOCK_DURATION_MS: "1500" } }).workers.WORKER_LOCK_DURATION_MS).to.equal(1500);
    const json = JSON.stringify({ WORKER_LOCK_DURATION_MS: 2000, RETRIEVAL_FUSION: "rrf" });
    const tested = parseConfig({ NODE_ENV: "test", SKILLNET_TEST_TUNABLES: json });
    expect(tested.workers.WORKER_LOCK_DURATION_MS).to.equal(2000);
    expect(tested.retrieval.RETRIEVAL_FUSION).to.equal("rrf");
    const deployed = parseConfig({ NODE_ENV: "production", SKILLNET_TEST_TUNABLES: json });
    expect(deployed.workers.WORKER_LOCK_DURATION_MS, "a deployment cannot reach a tunable").to.equal(10_000);
    // Overrides win over the variable, as a suite's own server over the stack's values.
    expect(
      parseConfig({ NODE_ENV: "test", SKILLNET_TEST_TUNABLES: json }, { overrides: { WORKER_LOCK_DURATION_MS: 3000 } }).workers.WORKER_LOCK_DURATION_MS,
    ).to.equal(3000);
  });

  it("reports bad variables, bad tunables and unknown override names together", () => {
    const problems = problemsOf(() =>
      parseConfig({ NODE_ENV: "test", PORT: "eighty", SKILLNET_TEST_TUNABLES: '{"CHUNK_TOKENS": 3}' }, { overrides: { NO_SUCH_TUNABLE: 1, PORT: 1 } }),
    );
    const text = problems.join("\n");
    for (const expected of ["PORT: ", "CHUNK_TOKENS: ", "NO_SUCH_TUNABLE: is not a tunable", "PORT: is not a tunable"]) expect(text).to.include(expected);
    expect(problemsOf(() => parseConfig({ NODE_ENV: "test", SKILLNET_TEST_TUNABLES: "{nope" })).join()).to.include("SKILLNET_TEST_TUNABLES: is not valid JSON");
  });

  it("keeps the cross-field checks across a variable and a tunable", () => {
    const problems = problemsOf(() => parseConfig({ JWT_MAX_TTL_SECONDS: "600", ACCESS_TOKEN_TTL_SECONDS: "900" }));
    expect(problems.join("\n")).to.include("JWT_TTL_SECONDS: 43200 exceeds JWT_MAX_TTL_SECONDS (600)").and.include("ACCESS_TOKEN_TTL_SECONDS: 900 exceeds");
  });

  it("reads TRUST_PROXY as on/off or a count of proxies", () => {
    expect(parseConfig({}).server).to.include({ trustProxy: false, trustProxyHops: 1 });
    expect(parseConfig({ TRUST_PROXY: "true" }).server).to.include({ trustProxy: true, trustProxyHops: 1 });
    expect(parseConfig({ TRUST_PROXY: "3" }).server).to.include({ trustProxy: true, trustProxyHops: 3 });
    expect(parseConfig({ TRUST_PROXY: "no" }).server).to.include({ trustProxy: false });
    expect(problemsOf(() => parseConfig({ TRUST_PROXY: "maybe" })).join()).to.include("TRUST_PROXY");
  });
});
