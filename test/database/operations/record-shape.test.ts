/**
 * One record shape for every long operation (db/queries/operations.ts): each operation's table
 * has the shared columns with the same types, and its status takes the same four values (a fifth
 * is refused by the database).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { OPERATION_COLUMNS, OPERATION_STATUSES, OPERATION_TABLES } from "../../../db/queries/operations";
import { databaseSuite } from "../../support/database";

describe("operations: one record shape", function () {
  const lane = databaseSuite(this);
  const db = () => lane.db;

  it("gives every operation's table the shared columns, with the same types and nullability", async () => {
    const { rows } = await db().raw(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY(?) AND column_name = ANY(?)`,
      [[...OPERATION_TABLES], OPERATION_COLUMNS],
    );
    const shapeOf = (table: string) =>
      (rows as Array<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>)
        .filter((row) => row.table_name === table)
        .map((row) => `${row.column_name} ${row.data_type} ${row.is_nullable}`)
        .sort();
    const reference = shapeOf(OPERATION_TABLES[0]);
    expect(reference).to.have.length(OPERATION_COLUMNS.length);
    expect(reference).to.include.members(["counts jsonb NO", "status text NO", "step text YES", "runs integer NO", "started_at timestamp with time zone YES"]);
    for (const table of OPERATION_TABLES) expect(shapeOf(table), table).to.deep.equal(reference);
  });

  it("accepts the same four statuses in every table and refuses any other", async () => {
    for (const table of OPERATION_TABLES) {
      const { rows } = await db().raw(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%'`,
        [table],
      );
      const allowed = [...String(rows[0]?.def ?? "").matchAll(/'(\w+)'::text/g)].map((match) => match[1]).sort();
      expect(allowed, table).to.deep.equal([...OPERATION_STATUSES].sort());
    }
    const refused = await db()("org_deletions")
      .insert({ target_org_id: randomUUID(), slug: "x", name: "x", requested_via: "cli", status: "applying" })
      .catch((error: { code?: string }) => error.code);
    expect(refused).to.equal("23514");
  });
});
