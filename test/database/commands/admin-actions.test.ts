/**
 * The admin action commands, called as the actions API and the admin-plan worker call them,
 * against the database lane: confirm (announce, queue, or undo), reject, resume and withdraw.
 */
import { expect } from "chai";
import { confirmAction } from "../../../commands/confirm-action";
import { rejectAction } from "../../../commands/reject-action";
import { stopAction } from "../../../commands/stop-action";
import { resumeAction } from "../../../commands/resume-action";
import { Refusal } from "../../../lib/refusal";
import { withdrawProposals } from "../../../commands/withdraw-proposals";
import { findAction } from "../../../db/queries/admin-actions";
import { adminActionJobId } from "../../../queues/job-ids";
import { commandSuite, actionEvents, freshPerson, pendingDeactivation, refusingProducer } from "./helpers";

describe("commands: admin actions", function () {
  const lane = commandSuite(this);
  let orgId: string;
  before(() => {
    orgId = lane.orgId;
  });

  it("confirm: pending → confirmed, announced before its run is queued; a second confirm is refused and queues nothing", async () => {
    const admin = await freshPerson(lane, "admin");
    const action = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const deps = lane.deps;

    const confirmed = await confirmAction(deps, { orgId, actionId: action.id, confirmerId: admin.id });
    expect(confirmed.kind).to.equal("confirmed");
    expect(await deps.producer.queue("admin-actions").getJob(adminActionJobId(action.id, 1))).to.not.equal(undefined);
    expect((await actionEvents(lane, action.id))[0]).to.deep.equal({ event: "action_status", status: "confirmed", by: admin.id });

    const again = await confirmAction(deps, { orgId, actionId: action.id, confirmerId: admin.id });
    expect(again.kind).to.equal("refused");
    if (again.kind === "refused") expect(again.transition.status).to.be.oneOf(["confirmed", "running", "completed"]);
    expect(await deps.producer.queue("admin-actions").getJob(adminActionJobId(action.id, 2))).to.equal(undefined);
  });

  it("confirm with the queue refusing: back to pending, announced, QUEUE_UNAVAILABLE; confirming later works", async () => {
    const admin = await freshPerson(lane, "admin");
    const action = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const producer = await refusingProducer(lane);
    try {
      const refused = await confirmAction({ ...lane.deps, producer }, { orgId, actionId: action.id, confirmerId: admin.id }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(Refusal);
      expect(refused).to.include({ kind: "unavailable", code: "QUEUE_UNAVAILABLE" });
    } finally {
      await producer.close().catch(() => undefined);
    }
    const row = await findAction(lane.deps.db, orgId, action.id);
    expect(row).to.include({ status: "pending", confirmed_by: null, runs: 0 });
    expect((await actionEvents(lane, action.id)).map((e) => e.status)).to.deep.equal(["confirmed", "pending"]);

    const retried = await confirmAction(lane.deps, { orgId, actionId: action.id, confirmerId: admin.id });
    expect(retried.kind).to.equal("confirmed");
    if (retried.kind === "confirmed") expect(retried.action.runs).to.equal(1);
  });

  it("reject: pending → rejected with the reason and announced; rejecting again changes nothing", async () => {
    const admin = await freshPerson(lane, "admin");
    const action = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const deps = lane.deps;
    const rejected = await rejectAction(deps, { orgId, actionId: action.id, rejectedBy: admin.id, reason: "superseded by a new request" });
    expect(rejected.ok).to.equal(true);
    expect((await findAction(deps.db, orgId, action.id))?.summary).to.deep.equal({ reason: "superseded by a new request" });
    const again = await rejectAction(deps, { orgId, actionId: action.id, rejectedBy: admin.id, reason: "rejected by the admin" });
    expect(again).to.deep.equal({ ok: false, status: "rejected" });
    expect(await actionEvents(lane, action.id)).to.deep.equal([{ event: "action_status", status: "rejected", by: admin.id }]);
  });

  it("resume: refused for an action that is not partial or failed, queueing nothing", async () => {
    const admin = await freshPerson(lane, "admin");
    const action = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const resumed = await resumeAction(lane.deps, { orgId, actionId: action.id, resumerId: admin.id });
    expect(resumed).to.deep.equal({ kind: "refused", transition: { ok: false, status: "pending" } });
    expect(await lane.deps.producer.queue("admin-actions").getJob(adminActionJobId(action.id, 1))).to.equal(undefined);
  });

  it("resume with the queue refusing: QUEUE_UNAVAILABLE, the action resumable again, and the log ends with resume_failed; resuming later works", async () => {
    const admin = await freshPerson(lane, "admin");
    const action = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    // Confirmed with no run queued, then stopped: a stopped action is resumable.
    await lane.deps.db("admin_actions").where({ id: action.id }).update({ status: "confirmed" });
    expect((await stopAction(lane.deps, { orgId, actionId: action.id, stoppedBy: admin.id })).kind).to.equal("stopped");
    const producer = await refusingProducer(lane);
    try {
      const refused = await resumeAction({ ...lane.deps, producer }, { orgId, actionId: action.id, resumerId: admin.id }).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(Refusal).and.to.include({ kind: "unavailable", code: "QUEUE_UNAVAILABLE" });
    } finally {
      await producer.close().catch(() => undefined);
    }
    const row = await findAction(lane.deps.db, orgId, action.id);
    expect(row?.status).to.be.oneOf(["failed", "partial"]);
    const items = await lane.deps.db("admin_action_items").where({ action_id: action.id }).select("status", "error");
    expect(items).to.deep.equal([{ status: "failed", error: "not run: the action queue was unavailable" }]);
    const audit = await lane.deps.db("audit_log").where({ org_id: orgId, target_id: action.id }).orderBy("created_at").select("action", "details");
    expect(audit.map((entry) => entry.action)).to.deep.equal([
      "admin_action.proposed",
      "admin_action.stopped",
      "admin_action.resumed",
      "admin_action.resume_failed",
    ]);
    expect(audit[3]!.details).to.include({ reason: "queue_unavailable" });
    expect(await lane.deps.db("audit_log").where({ org_id: orgId, target_id: action.id, action: "admin_action.resume_failed" }).first("after")).to.deep.include(
      {
        after: { status: row?.status },
      },
    );

    const later = await resumeAction(lane.deps, { orgId, actionId: action.id, resumerId: admin.id });
    expect(later.kind).to.equal("resumed");
    expect(await lane.deps.producer.queue("admin-actions").getJob(adminActionJobId(action.id, row!.runs + 1))).to.not.equal(undefined);
  });

  it("withdraw: a turn's pending proposal is rejected and announced, naming the admin only when one ended it", async () => {
    const admin = await freshPerson(lane, "admin");
    const byAdmin = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const bySweep = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const deps = lane.workerDeps();
    await withdrawProposals(deps, { orgId, turnId: byAdmin.turn_id! }, "the turn that proposed it was cancelled", admin.id);
    await withdrawProposals(deps, { orgId, turnId: bySweep.turn_id! }, "the turn that proposed it was lost");
    expect(await findAction(deps.db, orgId, byAdmin.id)).to.include({ status: "rejected" });
    expect((await findAction(deps.db, orgId, bySweep.id))?.summary).to.deep.equal({ reason: "the turn that proposed it was lost" });
    expect(await actionEvents(lane, byAdmin.id)).to.deep.equal([{ event: "action_status", status: "rejected", by: admin.id }]);
    expect(await actionEvents(lane, bySweep.id)).to.deep.equal([{ event: "action_status", status: "rejected" }]);
  });
});
