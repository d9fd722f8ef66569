/**
 * The routes-read, commands-write check behind `npm run lint`: a route importing a write function
 * of db/queries (a `*-writes` module), a command's transaction, or opening a transaction by hand
 * is reported with file and line; type imports and read functions pass; the tree passes; and the
 * check, run on a throwaway tree holding such a route, exits 1.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { findRouteWrites, scanTree } from "../../../scripts/lint/route-writes";

const run = promisify(execFile);

const FIXTURE_ROUTE = [
  'import { findPerson } from "../../../../db/queries/users";',
  'import { updatePersonFields } from "../../../../db/queries/people-writes";',
  "export async function handler(db: never) {",
  "  await updatePersonFields(db, 'org', 'person', { name: 'x' });",
  "}",
].join("\n");

describe("lint: routes import only read functions of db/queries", function () {
  this.timeout(30_000);

  it("reports a route importing a write function, a command's transaction, or opening one by hand", () => {
    const found = findRouteWrites("server/routes/fixture/routes.ts", FIXTURE_ROUTE);
    expect(found.map((f) => [f.line, f.text])).to.deep.equal([[2, 'import { updatePersonFields } from "../../../../db/queries/people-writes";']]);
    const multiline = ["import {", "  insertScimUser,", "  type ScimUserRow,", '} from "../../../db/queries/scim-user-writes";'].join("\n");
    expect(findRouteWrites("server/scim/x.ts", multiline).map((f) => f.line)).to.deep.equal([1]);
    const transactions = ['import { withTransaction } from "../../../commands/transaction";', "await deps.db.transaction(async (trx) => work(trx));"].join("\n");
    expect(findRouteWrites("server/routes/y.ts", transactions).map((f) => f.line)).to.deep.equal([1, 2]);
  });

  it("lets types, read functions and commands through", () => {
    const source = [
      'import type { Applied } from "../../../../db/queries/catalog-writes";',
      'import { type NewPerson } from "../../../../db/queries/people-writes";',
      'import { findPerson } from "../../../../db/queries/users";',
      'import { createPerson } from "../../../../commands/manage-people";',
      'import type { Transaction } from "../../../../commands/transaction";',
      "// a comment about db.transaction( is no call",
    ].join("\n");
    expect(findRouteWrites("server/routes/z.ts", source)).to.deep.equal([]);
  });

  it("passes on the current tree", () => {
    expect(scanTree(process.cwd())).to.deep.equal([]);
  });

  it("fails the lint run on a tree whose route imports a write function", async () => {
    const dir = mkdtempSync(join(tmpdir(), "route-writes-"));
    try {
      mkdirSync(join(dir, "server/routes/fixture"), { recursive: true });
      writeFileSync(join(dir, "server/routes/fixture/routes.ts"), FIXTURE_ROUTE);
      // The check runs from the throwaway tree, with this checkout's packages (tsx).
      symlinkSync(resolve("node_modules"), join(dir, "node_modules"));
      const outcome = await run(process.execPath, ["--import", "tsx", resolve("scripts/lint/route-writes.ts")], { cwd: dir }).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(outcome.code).to.equal(1);
      expect(outcome.stderr).to.include("server/routes/fixture/routes.ts:2: a write function of db/queries");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
