/** The raw-table check behind `npm run lint`: it finds each shape of raw knex table call, ignores the rest, and the tree passes it. */
import { expect } from "chai";
import { findRawDbAccess, scanTree } from "../../../scripts/lint/raw-db-access";

describe("lint: raw table access outside db/", () => {
  it("finds db(), trx(), deps.db() and typed calls with a table name, naming file and line", () => {
    const source = [
      'const a = await db("documents").where({ id });',
      "await trx('document_files').insert(row);",
      "const b = await deps.db(`chat_messages`).first();",
      'const c = await knex<{ id: string }>("users").select("id");',
    ].join("\n");
    const found = findRawDbAccess("server/x.ts", source);
    expect(found.map((f) => f.line)).to.deep.equal([1, 2, 3, 4]);
    expect(found[0]).to.include({ file: "server/x.ts", text: 'const a = await db("documents").where({ id });' });
  });

  it("leaves query functions, transactions, comments and look-alikes alone", () => {
    const source = [
      "await findDocument(deps.db, orgId, id);",
      "await deps.db.transaction(async (trx) => saveExtraction(trx, orgId, id, text));",
      '// db("documents") in a comment explains, it does not query',
      'const feedback = sendDb("x");',
      'await deps.db.raw("select 1");',
    ].join("\n");
    expect(findRawDbAccess("workers/y.ts", source)).to.deep.equal([]);
  });

  it("passes on the current tree", () => {
    expect(scanTree(process.cwd())).to.deep.equal([]);
  });
});
