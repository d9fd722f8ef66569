/**
 * The three test lanes, chosen by folder: test/unit (no engine), test/database (PostgreSQL and
 * Redis, no server, workers or model) and every other folder (the whole stack). .mocharc.cjs
 * names the lane of a mocha process from the files it was given (SKILLNET_TEST_LANE) when they
 * all sit in one lane's folder; the helpers that start engines refuse what their lane has not.
 */
export type TestLane = "unit" | "database" | "stack";

/** The lane this process runs, or undefined when its files span lanes (then nothing is refused). */
export function currentLane(): TestLane | undefined {
  const lane = process.env.SKILLNET_TEST_LANE;
  return lane === "unit" || lane === "database" || lane === "stack" ? lane : undefined;
}

/** Rejects when this process's lane must not start `what`, naming the lane's folder and what to do instead. */
export function refuseOutsideLane(what: "the database" | "the stack"): Error | null {
  const lane = currentLane();
  if (lane === "unit") {
    return new Error(
      `a suite of the unit lane (test/unit) started ${what}: move it to test/database or test/<folder>, or give it fakes (test/support/fakes.ts)`,
    );
  }
  if (lane === "database" && what === "the stack") {
    return new Error(
      "a suite of the database lane (test/database) started the stack: reach the code through test/support/database.ts, or move the suite out of test/database",
    );
  }
  return null;
}
