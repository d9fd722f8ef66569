import { expect } from "chai";
import { buildRegistry, defineHandler } from "../../workers/registry";
import { HANDLERS } from "../../workers/handlers";
import { parseQueueSelection } from "../../workers/host";
import { QUEUE_NAMES } from "../../queues/names";

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
    expect(parseQueueSelection("all", 2).size).to.equal(QUEUE_NAMES.length);
    expect(() => parseQueueSelection("tutor-nope:2", 1)).to.throw(/unknown queue "tutor-nope"/);
  });
});
