/** The logging rule behind `npm run lint`: library code imports nothing that makes a logger; the entry points do; the tree passes. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { ENTRY_POINTS, findLoggerCreation, scanTree } from "../../../scripts/lint/logger-creation";

describe("lint: loggers are made by entry points only", () => {
  it("finds componentLogger, getLogger and any pino value import, aliased or over several lines, naming file and line", () => {
    const source = [
      'import { componentLogger } from "../../lib/logger";',
      'import { withLogContext, getLogger as root } from "../../../lib/logger";',
      'import { pino } from "pino";',
      "import pinoDefault from 'pino';",
      "import {",
      "  type LogContext,",
      "  componentLogger,",
      '} from "../../lib/logger";',
    ].join("\n");
    const found = findLoggerCreation("queues/x.ts", source);
    expect(found.map((f) => f.line)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(found[0]).to.deep.equal({ file: "queues/x.ts", line: 1, text: 'import { componentLogger } from "../../lib/logger"' });
  });

  it("leaves type imports, context helpers and look-alikes alone", () => {
    const source = [
      'import type { Logger } from "pino";',
      'import { type Logger as L } from "pino";',
      'import { withLogContext, addToLogContext, type LogContext } from "../../lib/logger";',
      'import { componentLogger } from "../../lib/logger-names";',
      ' * import { componentLogger } from "../../lib/logger"; (a comment\'s example)',
      'const log = deps.log.child({ component: "redis" });',
    ].join("\n");
    expect(findLoggerCreation("workers/y.ts", source)).to.deep.equal([]);
  });

  it("reports library code in a tree and exempts the entry points, launcher/, ops/ and scripts/", () => {
    const dir = mkdtempSync(join(tmpdir(), "logger-lint-"));
    try {
      const creates = 'import { componentLogger } from "../../lib/logger";\nexport const log = componentLogger("x");\n';
      const files = [
        ...ENTRY_POINTS.filter((file) => file !== "lib/logger.ts"),
        "queues/producer.ts",
        "workers/ingestion/pool.ts",
        "launcher/start.ts",
        "ops/cli/tool.ts",
        "scripts/bench/x.ts",
      ];
      for (const file of files) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), creates);
      }
      expect(scanTree(dir).map((found) => found.file)).to.have.members(["queues/producer.ts", "workers/ingestion/pool.ts"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes on the current tree", () => {
    expect(scanTree(process.cwd())).to.deep.equal([]);
  });
});
