/** docs/configuration.md is generated from the config schema; these fail when the two drift apart. */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { environmentSchema, parseConfig } from "../../../lib/config";
import { launcherSchema, parseLauncherConfig } from "../../../launcher/settings";
import { CONFIGURATION_PAGE, renderConfigurationPage } from "../../../scripts/docs/configuration";

/** `| \`NAME\` | default | accepts | meaning | why |` rows of the committed page, by variable name. */
function committedRows(page: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of page.split("\n")) {
    const match = /^\| `([A-Z0-9_]+)` \| (.*) \|$/.exec(line);
    if (match) rows.set(match[1]!, match[2]!.split(" | "));
  }
  return rows;
}

/** Every setting: the product's (lib/config.ts) and the launcher's own (launcher/settings.ts). */
const SETTINGS = [...Object.keys(environmentSchema.shape), ...Object.keys(launcherSchema.shape)];

describe("docs/configuration.md", () => {
  const committed = readFileSync(CONFIGURATION_PAGE, "utf8");

  it("is exactly what `npm run docs:config` generates from lib/config.ts", () => {
    expect(committed, "docs/configuration.md is stale: run npm run docs:config").to.equal(renderConfigurationPage());
  });

  it("lists every setting with the default the code applies when it is unset", () => {
    const rows = committedRows(committed);
    // Every section of the product flattened, beside the launcher's: names are unique across sections.
    const defaults = Object.assign({}, ...Object.values(parseConfig({})), parseLauncherConfig({})) as Record<string, unknown>;
    for (const name of SETTINGS) {
      const row = rows.get(name);
      expect(row, `${name} is missing from docs/configuration.md`).to.not.equal(undefined);
      const documented = row![0];
      const actual = defaults[name];
      expect(documented, name).to.equal(actual === undefined ? "—" : `\`${String(actual)}\``);
      expect(row![2]!.trim().length, `${name} has an empty description`).to.be.greaterThan(10);
      expect(row![3]?.trim().length ?? 0, `${name} does not say why an operator would change it`).to.be.greaterThan(20);
    }
  });

  it("every setting also appears in .env.example", () => {
    const template = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
    const missing = SETTINGS.filter((name) => !new RegExp(`^# ?${name}=`, "m").test(template));
    expect(missing).to.deep.equal([]);
  });
});
