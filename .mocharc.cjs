/**
 * Every mocha run. Lanes are chosen by folder (docs/architecture.md, "Where a test goes"):
 *   test/unit/**      no engine: logic with fakes (test/support/fakes.ts)
 *   test/database/**  PostgreSQL and Redis only: commands, queries, handlers (test/support/database.ts)
 *   test/<other>/**   the whole stack: server, workers, model (test/support/stack.ts)
 * When every file given sits in one lane's folder, SKILLNET_TEST_LANE names that lane and the
 * helpers refuse what it has not (a unit suite starting an engine, a database suite the stack).
 */
const LANES = [
  ["unit", /^(\.\/)?test\/unit\//],
  ["database", /^(\.\/)?test\/database\//],
];
const laneOf = (spec) => LANES.find(([, folder]) => folder.test(spec))?.[0] ?? "stack";

/** The files and globs given on the command line (not the values of --ignore/--exclude). */
function specsOf(argv) {
  const specs = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--ignore" || arg === "--exclude") i++;
    else if (arg.startsWith("test/") || arg.startsWith("./test/")) specs.push(arg);
  }
  return specs;
}

if (!process.env.SKILLNET_TEST_LANE) {
  const lanes = new Set(specsOf(process.argv.slice(2)).map(laneOf));
  if (lanes.size === 1) process.env.SKILLNET_TEST_LANE = [...lanes][0];
}

module.exports = {
  "node-option": ["import=tsx"],
  require: ["test/support/hooks.ts"],
  timeout: 30000,
  exit: true,
};
