/**
 * Which lane a test file belongs to, by its folder (docs/architecture.md, "Where a test goes"):
 * test/unit → "unit", test/database → "database", any other folder → "stack". CommonJS, as
 * .mocharc.cjs reads it before mocha loads TypeScript.
 */
const LANE_FOLDERS = [
  ["unit", /^(\.\/)?test\/unit\//],
  ["database", /^(\.\/)?test\/database\//],
];

/** The lane of one file or glob. */
function laneOf(spec) {
  return LANE_FOLDERS.find(([, folder]) => folder.test(spec))?.[0] ?? "stack";
}

/** The files and globs of a mocha command line (not the values of --ignore/--exclude). */
function specsOf(argv) {
  const specs = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--ignore" || arg === "--exclude") i++;
    else if (arg.startsWith("test/") || arg.startsWith("./test/")) specs.push(arg);
  }
  return specs;
}

/** The one lane every file of the command line sits in, or undefined when they span lanes (or none is given). */
function laneOfArgs(argv) {
  const lanes = new Set(specsOf(argv).map(laneOf));
  return lanes.size === 1 ? [...lanes][0] : undefined;
}

module.exports = { laneOf, laneOfArgs };
