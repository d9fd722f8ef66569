/**
 * `npm run build`: the production build. Each process entry point is bundled by esbuild into
 * one ES module under dist/ (npm packages stay external and load from node_modules), so the
 * image runs plain `node dist/server/main.js` with no TypeScript loader: no tsx start-up cost,
 * no compile cache to write, and extensionless imports resolved once, at build time.
 *
 * Bundles sit where their sources sit (server/main.ts → dist/server/main.js), so code that
 * finds a file next to itself with `new URL("../x", import.meta.url)` finds `dist/x`: the
 * browser client (web/dist) is copied to dist/web/dist for that reason. The extraction threads
 * get their own bundle, and each entry is told where it is (__EXTRACTION_THREAD_ENTRY__).
 * Type errors are caught before this runs (`tsc -p tsconfig.build.json`, see package.json).
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// Tests build into a temporary folder (with node_modules linked beside it) to leave dist/ alone.
const { values } = parseArgs({ options: { "out-dir": { type: "string", default: join(ROOT, "dist") } } });
const DIST = resolve(values["out-dir"]);

/** Source entry → bundle path under dist/. */
const ENTRIES: Record<string, string> = {
  "server/main.ts": "server/main.js",
  "workers/main.ts": "workers/main.js",
  "ops/cli/prepare-database-cli.ts": "ops/cli/prepare-database-cli.js",
  "ops/cli/reembed.ts": "ops/cli/reembed.js",
  "ops/cli/org.ts": "ops/cli/org.js",
  "ops/cli/sync.ts": "ops/cli/sync.js",
  // The tracing preload (`node --import ./dist/telemetry/register.js dist/server/main.js`): its own
  // bundle, since it must run before the program's modules load; the SDK stays in node_modules.
  "lib/telemetry/register.ts": "telemetry/register.js",
};
const EXTRACTION_THREAD = { source: "workers/ingestion/isolation/thread-tasks.ts", out: "workers/extraction-thread.js" };

const shared = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  tsconfig: "tsconfig.build.json",
  logLevel: "warning",
} as const;

async function main(): Promise<void> {
  const started = performance.now();
  rmSync(DIST, { recursive: true, force: true });
  await build({ ...shared, entryPoints: [EXTRACTION_THREAD.source], outfile: join(DIST, EXTRACTION_THREAD.out) });
  await Promise.all(
    Object.entries(ENTRIES).map(([source, out]) => {
      const outfile = join(DIST, out);
      const threadFromHere = `./${relative(dirname(outfile), join(DIST, EXTRACTION_THREAD.out))}`;
      return build({ ...shared, entryPoints: [source], outfile, define: { __EXTRACTION_THREAD_ENTRY__: JSON.stringify(threadFromHere) } });
    }),
  );
  const web = join(ROOT, "web/dist");
  if (existsSync(web)) cpSync(web, join(DIST, "web/dist"), { recursive: true });
  process.stdout.write(
    `built ${relative(ROOT, DIST) || DIST} in ${Math.round(performance.now() - started)} ms${existsSync(web) ? " (with web/dist)" : " (web/dist missing: run npm run build:web first to include the browser client)"}\n`,
  );
}

await main();
