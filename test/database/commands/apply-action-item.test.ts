/**
 * The typed applier table: every write tool the assistant offers has exactly one applier and one
 * target schema (the compile-time half is `satisfies { [T in WriteTool]: Applier<T> }` in
 * commands/apply-action-item.ts), and an item runs once, through its tool's schema.
 */
import { expect } from "chai";
import { APPLIERS, applyActionItem } from "../../../commands/apply-action-item";
import { WRITE_TARGETS } from "../../../commands/write-targets";
import { ItemRejected } from "../../../lib/refusal";
import { findAction, listActionItems } from "../../../db/queries/admin-actions";
import { proposeAction } from "../../../commands/action-run";
import { WRITE_TOOLS } from "../../../workers/admin/tools/write-tools";
import { commandSuite, adminSession, freshPerson, pendingDeactivation } from "./helpers";

describe("commands: applying an admin action item", function () {
  const lane = commandSuite(this);
  let orgId: string;
  before(() => {
    orgId = lane.orgId;
  });

  it("has one applier and one target schema for each write tool, and nothing else", () => {
    const tools = WRITE_TOOLS.map((tool) => tool.name).sort();
    expect(Object.keys(APPLIERS).sort()).to.deep.equal(tools);
    expect(Object.keys(WRITE_TARGETS).sort()).to.deep.equal(tools);
  });

  it("applies an item once (audited), then reports it already done", async () => {
    const admin = await freshPerson(lane, "admin");
    const target = await freshPerson(lane);
    const action = await pendingDeactivation(lane, admin.id, target);
    const db = lane.deps.db;
    const [item] = await listActionItems(db, orgId, action.id);
    expect(await applyActionItem(db, action, item!.id)).to.equal("applied");
    expect(await applyActionItem(db, action, item!.id)).to.equal("already");
    expect(await db("users").where({ id: target.id }).first("is_active")).to.deep.equal({ is_active: false });
    expect(await db("audit_log").where({ action_item_id: item!.id }).count<{ count: string }[]>("* as count")).to.deep.equal([{ count: "1" }]);
  });

  it("refuses, with a reason, an item whose target is not its tool's shape or whose tool is unknown, changing nothing", async () => {
    const admin = await freshPerson(lane, "admin");
    const { sessionId, turnId } = await adminSession(lane, admin.id);
    const db = lane.deps.db;
    const action = await proposeAction(
      { db },
      {
        orgId,
        userId: admin.id,
        sessionId,
        turnId,
        tool: "verify_skill",
        args: {},
        preview: "Set a level.",
        estimate: { items: 1, writes: 3, seconds: 1 },
        expiresAt: new Date(Date.now() + 3600_000),
        // A level the tool's schema never lets through: the applier must not write it.
        items: [{ target: { user_id: admin.id, skill_id: admin.id, level: 9 }, label: "bad", before: null, after: null }],
      },
    );
    const [item] = await listActionItems(db, orgId, action.id);
    const malformed = await applyActionItem(db, action, item!.id).catch((error: unknown) => error);
    expect(malformed).to.be.instanceOf(ItemRejected);
    expect((malformed as Error).message).to.equal("the frozen item does not hold a verify_skill target");

    const unknown = await applyActionItem(db, { ...(await findAction(db, orgId, action.id))!, tool: "delete_everything" }, item!.id).catch(
      (error: unknown) => error,
    );
    expect(unknown).to.be.instanceOf(ItemRejected);
    expect((unknown as Error).message).to.equal("unknown action tool delete_everything");
    expect((await listActionItems(db, orgId, action.id))[0]).to.include({ status: "pending" });
  });
});
