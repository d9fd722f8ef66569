/** The Redis key rule behind `npm run lint`: `skillnet:` keys and `ownedKey` calls only in the registry; the tree passes. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { findKeysBuiltOutside, REGISTRY_FILES, scanTree } from "../../../scripts/lint/redis-keys";

describe("lint: Redis keys are built by the registry", () => {
  it("finds key prefixes in any quote and ownedKey calls, naming file and line", () => {
    const source = [
      "const a = `skillnet:board-code:${code}`;",
      "const b = 'skillnet:sso:state:' + state;",
      'const c = "skillnet:turn-events";',
      "const d = ownedKey(cluster, id, `x:${id}`);",
    ].join("\n");
    const found = findKeysBuiltOutside("server/x.ts", source);
    expect(found.map((f) => f.line)).to.deep.equal([1, 2, 3, 4]);
    expect(found[0]).to.deep.equal({ file: "server/x.ts", line: 1, text: "const a = `skillnet:board-code:${code}`;" });
  });

  it("leaves comments, the registry's builder and look-alikes alone", () => {
    const source = [
      " * `skillnet:turn:<id>:log`: a comment's example",
      '// "skillnet:old" as it was',
      'const key = redisKey("turnLog", cluster, { turnId });',
      'span.setAttribute("skillnet.turn_id", turnId);',
      'const filename = "skillnet-data.zip";',
      "export function ownedKey(cluster: boolean, ownerId: string, name: string): string {",
    ].join("\n");
    expect(findKeysBuiltOutside("queues/y.ts", source)).to.deep.equal([]);
  });

  it("reports product code in a tree and exempts the registry, test/ and scripts/", () => {
    const dir = mkdtempSync(join(tmpdir(), "redis-keys-lint-"));
    try {
      const builds = "export const key = (id: string) => `skillnet:thing:${id}`;\n";
      for (const file of [...REGISTRY_FILES, "workers/llm/cache.ts", "operations/runner.ts", "test/harness/x.ts", "scripts/bench/x.ts"]) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), builds);
      }
      expect(scanTree(dir).map((found) => found.file)).to.have.members(["workers/llm/cache.ts", "operations/runner.ts"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes on the current tree", () => {
    expect(scanTree(process.cwd())).to.deep.equal([]);
  });
});
