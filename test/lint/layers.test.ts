/**
 * The layer directions `npm run lint` enforces (biome.json overrides, noRestrictedImports):
 * a throwaway tree with one import in each allowed and each forbidden direction is linted with
 * the project's own configuration, and exactly the forbidden ones are reported.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const BIOME = resolve("node_modules/.bin/biome");

const TREE: Record<string, string> = {
  "lib/words.ts": "export const word = 1;\n",
  "db/query.ts": 'import { word } from "../lib/words";\nexport const query = word;\n',
  "queues/names.ts": 'import { word } from "../lib/words";\nexport const name = word;\n',
  "commands/command.ts":
    'import { query } from "../db/query";\nimport { name } from "../queues/names";\nimport { word } from "../lib/words";\nexport const command = [query, name, word];\n',
  "operations/runner.ts":
    'import { query } from "../db/query";\nimport { name } from "../queues/names";\nimport { word } from "../lib/words";\nexport const runner = [query, name, word];\n',
  "commands/runs.ts": 'import { runner } from "../operations/runner";\nexport const runs = runner;\n',
  "workers/stage.ts":
    'import { query } from "../db/query";\nimport { name } from "../queues/names";\nimport { command } from "../commands/command";\nimport { runner } from "../operations/runner";\nexport const stage = [query, name, command, runner];\n',
  "workers/turns/shared.ts": 'import { query } from "../../db/query";\nexport const shared = query;\n',
  "workers/tutor/own.ts": 'import { shared } from "../turns/shared";\nexport const own = shared;\n',
  "workers/admin/fine.ts": 'import { shared } from "../turns/shared";\nimport { query } from "../../db/query";\nexport const fine = [shared, query];\n',
  "server/routes/fine.ts":
    'import { query } from "../../db/query";\nimport { name } from "../../queues/names";\nimport { word } from "../../lib/words";\nimport { command } from "../../commands/command";\nexport const fine = [query, name, word, command];\n',
  // Forbidden, one per rule:
  "server/routes/uses-worker.ts": 'import { stage } from "../../workers/stage";\nexport const bad = stage;\n',
  "workers/uses-server.ts": 'import { fine } from "../server/routes/fine";\nexport const bad = fine;\n',
  "workers/admin/uses-tutor.ts": 'import { own } from "../tutor/own";\nexport const bad = own;\n',
  "workers/maintenance/uses-tutor.ts": 'import { own } from "../tutor/own";\nexport const bad = own;\n',
  "workers/turns/uses-tutor.ts": 'import { own } from "../tutor/own";\nexport const bad = own;\n',
  "workers/turns/uses-admin.ts": 'import { fine } from "../admin/fine";\nexport const bad = fine;\n',
  "workers/admin/uses-server.ts": 'import { fine } from "../../server/routes/fine";\nexport const bad = fine;\n',
  "db/uses-queues.ts": 'import { name } from "../queues/names";\nexport const bad = name;\n',
  "queues/uses-db.ts": 'import { query } from "../db/query";\nexport const bad = query;\n',
  "lib/uses-db.ts": 'import { query } from "../db/query";\nexport const bad = query;\n',
  "commands/uses-server.ts": 'import { fine } from "../server/routes/fine";\nexport const bad = fine;\n',
  "commands/uses-worker.ts": 'import { stage } from "../workers/stage";\nexport const bad = stage;\n',
  "db/uses-commands.ts": 'import { command } from "../commands/command";\nexport const bad = command;\n',
  "queues/uses-commands.ts": 'import { command } from "../commands/command";\nexport const bad = command;\n',
  "lib/uses-commands.ts": 'import { command } from "../commands/command";\nexport const bad = command;\n',
  "operations/uses-worker.ts": 'import { stage } from "../workers/stage";\nexport const bad = stage;\n',
  "operations/uses-command.ts": 'import { command } from "../commands/command";\nexport const bad = command;\n',
  "db/uses-operations.ts": 'import { runner } from "../operations/runner";\nexport const bad = runner;\n',
  "queues/uses-operations.ts": 'import { runner } from "../operations/runner";\nexport const bad = runner;\n',
  "server/routes/uses-operations.ts": 'import { runner } from "../../operations/runner";\nexport const bad = runner;\n',
  "scripts/uses-test.ts": 'import { helper } from "../test/support/helper";\nexport const bad = helper;\n',
  "test/support/helper.ts": "export const helper = 1;\n",
  "test/harness/infra.ts": "export const infra = 1;\n",
  "scripts/uses-harness.ts": 'import { infra } from "../test/harness/infra";\nexport const fine = infra;\n',
  "offline-model/fine.ts": 'import { word } from "../lib/words";\nexport const fine = word;\n',
  "offline-model/uses-db.ts": 'import { query } from "../db/query";\nexport const bad = query;\n',
  "launcher/fine.ts": 'import { query } from "../db/query";\nimport { word } from "../lib/words";\nexport const fine = [query, word];\n',
  "launcher/uses-worker.ts": 'import { stage } from "../workers/stage";\nexport const bad = stage;\n',
  "ops/cli/fine.ts": 'import { stage } from "../../workers/stage";\nimport { name } from "../../queues/names";\nexport const fine = [stage, name];\n',
  "ops/cli/uses-server.ts": 'import { fine } from "../../server/routes/fine";\nexport const bad = fine;\n',
  "server/routes/uses-launcher.ts": 'import { fine } from "../../launcher/fine";\nexport const bad = fine;\n',
  // Settings sections: lib/config.ts composes them (and imports nothing else of the product); a section imports lib/ only.
  "workers/tutor/retrieval/settings.ts": 'import { word } from "../../../lib/words";\nexport const retrievalSettings = word;\n',
  "lib/config.ts":
    'import { retrievalSettings } from "../workers/tutor/retrieval/settings";\nimport { query } from "../db/query";\nexport const config = [retrievalSettings, query];\n',
  "workers/settings.ts": 'import { query } from "../db/query";\nexport const bad = query;\n',
};

describe("lint: layer directions", function () {
  this.timeout(30_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "skillnet-layers-"));
    const config = JSON.parse(readFileSync("biome.json", "utf8"));
    delete config.$schema;
    config.vcs = { enabled: false };
    config.files = { includes: ["**"] };
    writeFileSync(join(dir, "biome.json"), JSON.stringify(config));
    for (const [path, source] of Object.entries(TREE)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reports exactly the imports against the allowed directions", async () => {
    const output = await run(BIOME, ["lint", "--max-diagnostics=100", "."], { cwd: dir }).then(
      (ok) => ok.stdout + ok.stderr,
      (failed: { stdout: string; stderr: string }) => failed.stdout + failed.stderr,
    );
    const reported = [...output.matchAll(/^(\S+\.ts):\d+:\d+ lint\/style\/noRestrictedImports/gm)].map((m) => m[1]).sort();
    expect(reported).to.deep.equal([
      "commands/uses-server.ts",
      "commands/uses-worker.ts",
      "db/uses-commands.ts",
      "db/uses-operations.ts",
      "db/uses-queues.ts",
      "launcher/uses-worker.ts",
      "lib/config.ts",
      "lib/uses-commands.ts",
      "lib/uses-db.ts",
      "offline-model/uses-db.ts",
      "operations/uses-command.ts",
      "operations/uses-worker.ts",
      "ops/cli/uses-server.ts",
      "queues/uses-commands.ts",
      "queues/uses-db.ts",
      "queues/uses-operations.ts",
      "scripts/uses-test.ts",
      "server/routes/uses-launcher.ts",
      "server/routes/uses-operations.ts",
      "server/routes/uses-worker.ts",
      "workers/admin/uses-server.ts",
      "workers/admin/uses-tutor.ts",
      "workers/maintenance/uses-tutor.ts",
      "workers/settings.ts",
      "workers/turns/uses-admin.ts",
      "workers/turns/uses-tutor.ts",
      "workers/uses-server.ts",
    ]);
    expect(output).to.include("share turn code through workers/turns/");
    expect(output).to.include("workers/turns/ is what both agents build on");
    expect(output).to.include("server/ may import from commands/, queues/, db/ and lib/ only");
    expect(output).to.include("commands/ may import from queues/, db/ and lib/ only");
    expect(output).to.include("operations/ may import from db/, queues/ and lib/ only");
  });
});
