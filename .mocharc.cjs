/**
 * Every mocha run. Lanes are chosen by folder (docs/architecture.md, "Where a test goes"):
 *   test/unit/**      no engine: logic, with fakes (test/support/fakes.ts)
 *   test/database/**  PostgreSQL and Redis only: commands, queries, handlers (test/support/database.ts)
 *   test/<other>/**   the whole stack: server, workers, model (test/support/stack.ts)
 * When every file given sits in one lane's folder, SKILLNET_TEST_LANE names that lane and the
 * helpers refuse what it has not (a unit suite starting an engine, a database suite the stack).
 */
const { laneOfArgs } = require("./test/support/lane-of.cjs");

if (!process.env.SKILLNET_TEST_LANE) {
  const lane = laneOfArgs(process.argv.slice(2));
  if (lane) process.env.SKILLNET_TEST_LANE = lane;
}

module.exports = {
  "node-option": ["import=tsx"],
  require: ["test/support/hooks.ts"],
  timeout: 30000,
  exit: true,
};
