import { expect } from "chai";
import { buildRegistry, defineHandler } from "../../workers/registry";
import { HANDLERS } from "../../workers/handlers";
import { parseQueueSelection } from "../../workers/host";
import { QUEUE_NAMES } from "../../queues/names";
import { JOB_OPTIONS } from "../../queues/job-options";

describe("worker registry", () => {
  it("has exactly one handler for every queue", () => {
    const registry = buildRegistry(HANDLERS, [...QUEUE_NAMES]);
    expect([...registry.keys()].sort()).to.deep.equal([...QUEUE_NAMES].sort());
  });

  it("refuses a duplicate handler and a served queue without one", () => {
    const twice = defineHandler({ queue: "chat-summarise", perform: async () => undefined });
    expect(() => buildRegistry([...HANDLERS, twice], [])).to.throw(/Two handlers.*chat-summarise/);
    expect(() => buildRegistry(HANDLERS.filter((h) => h.queue !== "tutor-retrieve"), ["tutor-retrieve"])).to.throw(/No handler.*tutor-retrieve/);
  });

  it("parses WORKER_QUEUES with per-queue concurrency", () => {
    expect(Object.fromEntries(parseQueueSelection("tutor-generate:50,chat-summarise", 3))).to.deep.equal({ "tutor-generate": 50, "chat-summarise": 3 });
    const all = parseQueueSelection("all", 2);
    expect(all.size).to.equal(QUEUE_NAMES.length);
    expect(all.get("tutor-generate")).to.equal(8, "model-bound generation gets 4x the default");
    expect(all.get("tutor-classify")).to.equal(2);
    expect(() => parseQueueSelection("tutor-nope:2", 1)).to.throw(/unknown queue "tutor-nope"/);
  });

  it("queues flow parents by priority, so turns are served first come, first served", () => {
    // BullMQ pushes unprioritised parents to the front of the wait list (newest first).
    expect(JOB_OPTIONS["tutor-generate"].priority).to.be.greaterThan(0);
    expect(JOB_OPTIONS["tutor-retrieve"].priority).to.be.greaterThan(0);
    expect(JOB_OPTIONS["tutor-classify"].attempts).to.equal(3);
  });
});
