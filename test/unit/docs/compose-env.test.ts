/** Every setting of lib/config.ts reaches the Docker Compose containers; fails when one is left out. */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { parse } from "yaml";
import { environmentSchema, parseConfig } from "../../../lib/config";
import { COMPOSE_FILE, renderComposeFile, renderComposeSettings } from "../../../scripts/docs/compose-env";

const committed = readFileSync(COMPOSE_FILE, "utf8");
const compose = parse(committed, { merge: true }) as {
  "x-app-env": Record<string, string | null>;
  services: Record<string, { environment?: unknown; command?: string[] }>;
};
const SETTINGS = Object.keys(environmentSchema.shape);

describe("docker-compose.yml environment", () => {
  it("is exactly what `npm run docs:config` generates from lib/config.ts", () => {
    expect(committed, "docker-compose.yml is stale: run npm run docs:config").to.equal(renderComposeFile(committed));
  });

  it("passes every setting of lib/config.ts to the app containers (read from the YAML, not the generator)", () => {
    const environment = compose["x-app-env"];
    expect(SETTINGS.filter((name) => !(name in environment))).to.deep.equal([]);
    for (const service of ["migrate", "server", "worker"]) {
      expect(compose.services[service]!.environment, `${service} uses the shared environment`).to.deep.equal(environment);
    }
    // The settings the issue found missing, named so a regression reads plainly.
    for (const name of ["QUEUE_SHARDS", "EXTRACT_THREADS", "LLM_CONTEXT_WINDOW", "WORKER_MODEL_CONCURRENCY"]) expect(environment).to.have.property(name);
  });

  it("passes unset settings through bare, so the process applies the default lib/config.ts documents", () => {
    const environment = compose["x-app-env"];
    const bare = SETTINGS.filter((name) => environment[name] === null);
    expect(bare.length, "most settings are plain pass-throughs").to.be.greaterThan(SETTINGS.length - 20);
    // What compose fixes or defaults still parses: the containers start with a valid config.
    const fixed = Object.fromEntries(
      Object.entries(environment)
        .filter(([name, value]) => SETTINGS.includes(name) && typeof value === "string")
        .map(([name, value]) => [
          name,
          String(value).replace(/\$\{[A-Z_]+:[-?]([^}]*)\}/g, (_, fallback: string) => (fallback.startsWith("set ") ? "x".repeat(32) : fallback)),
        ]),
    );
    expect(() => parseConfig({ ...fixed, DEV_LOGIN_ENABLED: "false" })).to.not.throw();
    expect(fixed.HOST, "the published port needs the container to listen on every interface").to.equal("0.0.0.0");
  });

  it("generates one line per setting, in the schema's order", () => {
    const names = renderComposeSettings()
      .split("\n")
      .flatMap((line) => /^ {2}([A-Z0-9_]+):/.exec(line)?.[1] ?? []);
    expect(names).to.deep.equal(SETTINGS);
  });
});
