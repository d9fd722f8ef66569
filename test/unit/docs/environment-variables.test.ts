/**
 * The environment stays small and explained: at most 60 variables in all (the product's sections,
 * the launcher's and the few read outside them), each with why an operator would change it, and
 * no product file reads a variable that is on no list. Tunables are constants and appear in no
 * operator's template.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { LAUNCHER_WHY, launcherSchema } from "../../../launcher/settings";
import { environmentSchema, tunablesSchema, WHY_CHANGE } from "../../../lib/config";
import { READ_OUTSIDE } from "../../../scripts/docs/configuration";
import { sourceFilesUnder } from "../../../scripts/lint/source-files";

const MAX_VARIABLES = 60;

/** Read by a library or the operating system, never chosen by the product: listed in the docs as standard, not counted. */
const STANDARD = /^(OTEL_[A-Z0-9_]+|PATH)$/;

const counted = (): Map<string, string> =>
  new Map<string, string>([
    ...Object.keys(environmentSchema.shape).map((name): [string, string] => [name, WHY_CHANGE[name] ?? ""]),
    ...Object.entries(LAUNCHER_WHY),
    ...READ_OUTSIDE.map((variable): [string, string] => [variable.name, variable.why]),
  ]);

describe("environment variables", () => {
  it(`are at most ${MAX_VARIABLES} in all, counting the launcher's and those read outside the schemas`, () => {
    const all = [...Object.keys(environmentSchema.shape), ...Object.keys(launcherSchema.shape), ...READ_OUTSIDE.map((variable) => variable.name)];
    expect(new Set(all).size, "a variable is declared twice").to.equal(all.length);
    expect(all.length, all.join(", ")).to.be.at.most(MAX_VARIABLES);
  });

  it("each say why an operator would change it", () => {
    for (const [name, why] of counted()) {
      expect(why.trim().length, `${name} has no reason to change it`).to.be.greaterThan(20);
    }
  });

  it("are the only variables product code reads from the environment", () => {
    const known = counted();
    const unknown = new Set<string>();
    const root = new URL("../../..", import.meta.url).pathname;
    for (const file of sourceFilesUnder(root, ["lib", "server", "workers", "queues", "db", "commands", "launcher", "ops", "offline-model"])) {
      const text = readFileSync(join(root, file), "utf8");
      for (const match of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]+)|\[\s*"([A-Z][A-Z0-9_]+)"\s*\])/g)) {
        const name = match[1] ?? match[2]!;
        if (!known.has(name) && !STANDARD.test(name)) unknown.add(`${name} (${file})`);
      }
    }
    expect([...unknown], "read but not documented: add it to a section, launcher/settings.ts or READ_OUTSIDE").to.deep.equal([]);
  });

  it("leave tunables out: no tunable is also a variable, and .env.example offers none", () => {
    const tunables = Object.keys(tunablesSchema.shape);
    expect(tunables.length, "the measured constants are declared").to.be.greaterThan(60);
    expect(tunables.filter((name) => counted().has(name))).to.deep.equal([]);
    const template = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
    expect(tunables.filter((name) => new RegExp(`^# ?${name}=`, "m").test(template))).to.deep.equal([]);
  });
});
