/**
 * The lanes are chosen by folder, and each refuses what it has not: a mocha command line whose
 * files sit in one lane's folder names that lane; the unit lane refuses the database and the
 * stack, the database lane refuses the stack — before anything is started.
 */
import { createRequire } from "node:module";
import { expect } from "chai";
import { refuseOutsideLane } from "../../support/lanes";

const { laneOf, laneOfArgs } = createRequire(import.meta.url)("../../support/lane-of.cjs") as {
  laneOf(spec: string): string;
  laneOfArgs(argv: string[]): string | undefined;
};

/** Runs `body` with SKILLNET_TEST_LANE set to `lane`, then puts the process's own lane back. */
async function inLane<T>(lane: string, body: () => Promise<T>): Promise<T> {
  const own = process.env.SKILLNET_TEST_LANE;
  process.env.SKILLNET_TEST_LANE = lane;
  try {
    return await body();
  } finally {
    if (own === undefined) delete process.env.SKILLNET_TEST_LANE;
    else process.env.SKILLNET_TEST_LANE = own;
  }
}

describe("test lanes by folder", function () {
  this.timeout(30_000);

  it("names a file's lane by its folder: test/unit, test/database, any other the stack", () => {
    expect(laneOf("test/unit/lib/messages.test.ts")).to.equal("unit");
    expect(laneOf("./test/database/db/queries/identity.test.ts")).to.equal("database");
    expect(laneOf("test/server/routes/chat/chat-api.test.ts")).to.equal("stack");
    expect(laneOf("test/workers/unit/x.test.ts"), "only the top folder counts").to.equal("stack");
  });

  it("names the lane of a command line whose files share one, and none when they span lanes", () => {
    expect(laneOfArgs(["test/unit/**/*.test.ts"])).to.equal("unit");
    expect(laneOfArgs(["--grep", "x", "test/database/a.test.ts", "test/database/b/c.test.ts"])).to.equal("database");
    expect(laneOfArgs(["test/workers/**/*.test.ts", "--ignore", "test/unit/x.test.ts"]), "an --ignore value is not a file").to.equal("stack");
    expect(laneOfArgs(["test/unit/a.test.ts", "test/database/b.test.ts"])).to.equal(undefined);
    expect(laneOfArgs([])).to.equal(undefined);
  });

  it("refuses the database and the stack in the unit lane, the stack in the database lane, nothing elsewhere", async () => {
    await inLane("unit", async () => {
      expect(refuseOutsideLane("the database")?.message).to.include("unit lane (test/unit) started the database");
      expect(refuseOutsideLane("the stack")?.message).to.include("unit lane (test/unit) started the stack");
    });
    await inLane("database", async () => {
      expect(refuseOutsideLane("the database")).to.equal(null);
      expect(refuseOutsideLane("the stack")?.message).to.include("database lane (test/database) started the stack");
    });
    await inLane("stack", async () => {
      expect(refuseOutsideLane("the database")).to.equal(null);
      expect(refuseOutsideLane("the stack")).to.equal(null);
    });
  });

  it("useDatabase() and useStack() reject in a lane that has not their engines, starting nothing", async () => {
    const { useDatabase } = await import("../../support/database");
    const { useStack } = await import("../../support/stack");
    const infrastructure = () => (globalThis as { __skillnetTestInfrastructure?: { starting?: unknown } }).__skillnetTestInfrastructure?.starting;
    const startedBefore = infrastructure(); // a mixed run (npm run test:only) may have started it for earlier suites
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: Error) => error.message,
      );
    await inLane("unit", async () => {
      expect(await refused(useDatabase())).to.include("started the database");
      expect(await refused(useStack())).to.include("started the stack");
    });
    await inLane("database", async () => expect(await refused(useStack())).to.include("database lane (test/database) started the stack"));
    expect(infrastructure(), "nothing was started").to.equal(startedBefore);
  });
});
