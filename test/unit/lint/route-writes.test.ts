/**
 * The routes-read, commands-write check behind `npm run lint`: a route importing a write function
 * of db/queries (a `*-writes` module, or a function that writes in any other module), a command's
 * transaction, or opening a transaction by hand is reported with file and line; type imports,
 * read functions and the listed technical writes pass; the tree passes; and the check, run on a
 * throwaway tree holding such a route, exits 1.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { findRouteWrites, scanTree, TECHNICAL_WRITES, writingExports } from "../../../scripts/lint/route-writes";

const run = promisify(execFile);

const FIXTURE_ROUTE = [
  'import { findPerson } from "../../../../db/queries/users";',
  'import { updatePersonFields } from "../../../../db/queries/people-writes";',
  "export async function handler(db: never) {",
  "  await updatePersonFields(db, 'org', 'person', { name: 'x' });",
  "}",
].join("\n");

/** A db/queries module with reads and writes side by side, as older modules are. */
const MIXED_MODULE = [
  'import type { Db } from "../knex";',
  "/** Reads. */",
  "export async function findNote(db: Db, id: string) {",
  '  return db("notes").where({ id }).first();',
  "}",
  "// a comment that says .delete( is no write",
  "export async function deleteNote(db: Db, id: string) {",
  '  await db("notes").where({ id }).delete();',
  "}",
  "export const touchNote = async (db: Db, id: string) =>",
  '  db("notes").where({ id }).update({ seen_at: db.fn.now() });',
  "export async function saveNotes(db: Db, notes: string[]) {",
  '  await db.transaction((trx) => trx("notes").insert(notes.map((text) => ({ text }))));',
  "}",
].join("\n");

const MIXED_ROUTE = [
  'import { deleteNote, findNote } from "../../../db/queries/notes";',
  "export async function handler(db: never) {",
  "  await deleteNote(db, await findNote(db, 'n'));",
  "}",
].join("\n");

describe("lint: routes import only read functions of db/queries", function () {
  this.timeout(30_000);

  it("reports a route importing a write function, a command's transaction, or opening one by hand", () => {
    const found = findRouteWrites("server/routes/fixture/routes.ts", FIXTURE_ROUTE);
    expect(found.map((f) => [f.line, f.text])).to.deep.equal([[2, 'import { updatePersonFields } from "../../../../db/queries/people-writes";']]);
    const multiline = ["import {", "  insertScimUser,", "  type ScimUserRow,", '} from "../../../db/queries/scim-user-writes";'].join("\n");
    expect(findRouteWrites("server/scim/x.ts", multiline).map((f) => f.line)).to.deep.equal([1]);
    const transactions = ['import { withTransaction } from "../../../commands/transaction";', "await deps.db.transaction(async (trx) => work(trx));"].join(
      "\n",
    );
    expect(findRouteWrites("server/routes/y.ts", transactions).map((f) => f.line)).to.deep.equal([1, 2]);
  });

  it("finds the exported functions of a mixed module that write (a call on the builder or a transaction), not its reads", () => {
    expect([...writingExports(MIXED_MODULE)].sort()).to.deep.equal(["deleteNote", "saveNotes", "touchNote"]);
  });

  it("reports a route importing a mixed module's write function, by name, and lets its reads through", () => {
    const modules = (path: string) => (path === "db/queries/notes" ? MIXED_MODULE : undefined);
    const found = findRouteWrites("server/routes/notes/routes.ts", MIXED_ROUTE, modules);
    expect(found.map((f) => [f.line, f.why.split(" ")[0]])).to.deep.equal([[1, "deleteNote"]]);
    const reads = 'import { findNote, type Note } from "../../../db/queries/notes";\nimport type { deleteNote } from "../../../db/queries/notes";';
    expect(findRouteWrites("server/routes/notes/routes.ts", reads, modules)).to.deep.equal([]);
    const everything = 'import * as notes from "../../../db/queries/notes";';
    expect(findRouteWrites("server/routes/notes/routes.ts", everything, modules).map((f) => f.why.split(" ")[0])).to.deep.equal([
      "deleteNote",
      "touchNote",
      "saveNotes",
    ]);
  });

  it("lets the listed technical writes through, each with its reason, and nothing else of their module", () => {
    const refresh = [
      "export async function spendRefreshToken(db: Db, id: string) {",
      '  return db("refresh_tokens").where({ id }).update({ used_at: db.fn.now() });',
      "}",
      "export async function forgetEveryone(db: Db) {",
      '  await db("refresh_tokens").delete();',
      "}",
    ].join("\n");
    const route = 'import { forgetEveryone, spendRefreshToken } from "../../db/queries/refresh-tokens";';
    const found = findRouteWrites("server/auth/x.ts", route, (path) => (path === "db/queries/refresh-tokens" ? refresh : undefined));
    expect(found.map((f) => f.why.split(" ")[0])).to.deep.equal(["forgetEveryone"]);
    // Each listed write is still one (no stale entry), and says why it goes unaudited.
    for (const [entry, why] of Object.entries(TECHNICAL_WRITES)) {
      const [module = "", name = ""] = entry.split(":");
      expect(writingExports(readFileSync(`${module}.ts`, "utf8")).has(name), entry).to.equal(true);
      expect(why, entry).to.have.length.above(20);
    }
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

  it("fails the lint run on a tree whose route imports a mixed module's write function", async () => {
    const dir = mkdtempSync(join(tmpdir(), "route-writes-mixed-"));
    try {
      mkdirSync(join(dir, "server/routes/notes"), { recursive: true });
      mkdirSync(join(dir, "db/queries"), { recursive: true });
      writeFileSync(join(dir, "db/queries/notes.ts"), MIXED_MODULE);
      writeFileSync(join(dir, "server/routes/notes/routes.ts"), MIXED_ROUTE);
      symlinkSync(resolve("node_modules"), join(dir, "node_modules"));
      const outcome = await run(process.execPath, ["--import", "tsx", resolve("scripts/lint/route-writes.ts")], { cwd: dir }).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(outcome.code).to.equal(1);
      expect(outcome.stderr).to.include("server/routes/notes/routes.ts:1: deleteNote writes");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
