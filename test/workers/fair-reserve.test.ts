/**
 * The reserved slot's rule (workers/fair-reserve.ts), as pure logic: it runs a job only while
 * every normal slot of its copy is busy and only of an organisation running fewer than two jobs
 * of that queue; otherwise it puts the job back in its place (moveToDelayed now, no attempt used)
 * and ends the attempt with DelayedError. End to end: test/e2e/fair-queues.test.ts.
 */
import { expect } from "chai";
import { DelayedError, type Job } from "bullmq";
import { OrgSlots, RESERVE_HELD_BELOW } from "../../workers/fair-reserve";

function fakeJob(orgId: string): Job & { movedBack: number[] } {
  const movedBack: number[] = [];
  return { data: { orgId }, movedBack, moveToDelayed: async (at: number) => void movedBack.push(at) } as unknown as Job & { movedBack: number[] };
}

/** Holds `count` normal slots of copy 0 of `queue` for `orgId` until `release` is called. */
function holdSlots(slots: OrgSlots, queue: string, orgId: string, count: number): { release(): void; settled: Promise<unknown> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const settled = Promise.all(Array.from({ length: count }, () => slots.hold(queue, 0, orgId, () => gate)));
  return { release, settled };
}

describe("the reserved slot of a fair queue (workers/fair-reserve.ts)", () => {
  it("runs a light organisation's job once every normal slot is busy with a heavy one", async () => {
    const slots = new OrgSlots();
    const heavy = holdSlots(slots, "tutor-generate", "A", 4);
    expect(slots.heldBy("tutor-generate", "A")).to.equal(4);
    const job = fakeJob("B");
    expect(await slots.reserve("tutor-generate", 0, 4, job, "token", async () => "ran")).to.equal("ran");
    expect(job.movedBack).to.deep.equal([]);
    heavy.release();
    await heavy.settled;
    expect(slots.heldBy("tutor-generate", "A")).to.equal(0);
  });

  it("puts a heavy organisation's job back in its place instead of running it", async () => {
    const slots = new OrgSlots();
    const heavy = holdSlots(slots, "tutor-generate", "A", 4);
    const job = fakeJob("A");
    let ran = false;
    const attempt = slots.reserve("tutor-generate", 0, 4, job, "token", async () => (ran = true));
    await attempt.then(
      () => expect.fail("the reserve ran a heavy organisation's job"),
      (error) => expect(error).to.be.instanceOf(DelayedError),
    );
    expect(ran).to.equal(false);
    expect(job.movedBack).to.have.length(1);
    expect(RESERVE_HELD_BELOW).to.equal(2);
    heavy.release();
    await heavy.settled;
  });

  it("leaves work to the normal slots while one is free, and counts each copy apart", async () => {
    const slots = new OrgSlots();
    const some = holdSlots(slots, "ingest-embed", "A", 3);
    const job = fakeJob("B");
    await slots.reserve("ingest-embed", 0, 4, job, "token", async () => "ran").catch((error) => expect(error).to.be.instanceOf(DelayedError));
    expect(job.movedBack, "a normal slot is free: the job goes back for it").to.have.length(1);
    // Copy 1's normal slots are all free, whatever copy 0 holds.
    const other = fakeJob("C");
    await slots.reserve("ingest-embed", 1, 1, other, "token", async () => "ran").catch((error) => expect(error).to.be.instanceOf(DelayedError));
    expect(other.movedBack).to.have.length(1);
    some.release();
    await some.settled;
  });
});
