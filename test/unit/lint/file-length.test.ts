/** The file-length rule behind `npm run lint`: no product file over 330 lines, counted like `wc -l`; tools and data are exempt; the tree passes. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { countLines, MAX_LINES, scanTree } from "../../../scripts/lint/file-length";

const linesOf = (count: number): string => "const x = 1;\n".repeat(count);

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "file-length-lint-"));
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), source);
  }
  return dir;
}

describe("lint: no product file over 330 lines", () => {
  it("counts lines as wc -l does, a last line without its newline included", () => {
    expect(countLines("")).to.equal(0);
    expect(countLines("a\n")).to.equal(1);
    expect(countLines("a\nb")).to.equal(2);
    expect(countLines(linesOf(MAX_LINES))).to.equal(MAX_LINES);
    expect(countLines("\n\n\n")).to.equal(3);
  });

  it("names each product file over the limit with its line count, in every product folder and the web client's .tsx", () => {
    const over = linesOf(MAX_LINES + 1);
    const dir = tree({
      "workers/llm/client.ts": over,
      "server/sockets/gateway.ts": linesOf(MAX_LINES + 40),
      "web/src/admin/Page.tsx": over,
      "workers/ingestion/isolation/thread-entry.mjs": over,
      "db/queries/people.ts": over,
      "lib/at-the-limit.ts": linesOf(MAX_LINES),
      "queues/short.ts": linesOf(10),
    });
    try {
      expect(scanTree(dir, [])).to.have.deep.members([
        { file: "workers/llm/client.ts", lines: MAX_LINES + 1, kind: "too-long" },
        { file: "server/sockets/gateway.ts", lines: MAX_LINES + 40, kind: "too-long" },
        { file: "web/src/admin/Page.tsx", lines: MAX_LINES + 1, kind: "too-long" },
        { file: "workers/ingestion/isolation/thread-entry.mjs", lines: MAX_LINES + 1, kind: "too-long" },
        { file: "db/queries/people.ts", lines: MAX_LINES + 1, kind: "too-long" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves tests, scripts, bench, migrations, the seed data, the web build and non-source files alone", () => {
    const over = linesOf(MAX_LINES + 100);
    const dir = tree({
      "test/workers/llm/client.test.ts": over,
      "scripts/bench/pipeline.ts": over,
      "bench/results.ts": over,
      "db/migrations/20261201000000_init.ts": over,
      "db/seeds/demo-courses.ts": over,
      "db/seeds/demo-documents.ts": over,
      "db/seeds/demo-people.ts": over,
      "web/dist/assets/index.js": over,
      "docs/architecture.ts": over,
      "lib/data.json": over,
      "server/node_modules/dep/index.ts": over,
    });
    try {
      expect(scanTree(dir, [])).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("still checks the seeding code beside the seed data", () => {
    const dir = tree({ "db/seeds/demo-org.ts": linesOf(MAX_LINES + 1) });
    try {
      expect(scanTree(dir, [])).to.deep.equal([{ file: "db/seeds/demo-org.ts", lines: MAX_LINES + 1, kind: "too-long" }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets a listed file stay long, and fails a listed file that is within the limit or gone, so the list only shrinks", () => {
    const dir = tree({ "lib/config.ts": linesOf(MAX_LINES + 500), "ops/cli/org.ts": linesOf(200) });
    try {
      expect(scanTree(dir, ["lib/config.ts", "ops/cli/org.ts", "db/queries/identity.ts"])).to.have.deep.members([
        { file: "ops/cli/org.ts", lines: 200, kind: "stale-allowance" },
        { file: "db/queries/identity.ts", lines: 0, kind: "stale-allowance" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes on the current tree", () => {
    expect(scanTree(process.cwd())).to.deep.equal([]);
  });
});
