/**
 * `npm run bench`: what the pipeline adds around the model, and how that grows with load, on
 * this machine — written to bench/results.md with the machine, the settings, the date and raw
 * percentiles. `--quick` runs smaller sizes for development (results go to
 * bench/results-quick.md), `--smoke` tiny ones (to check that every module runs), `--only=name,name` picks modules.
 * Each measurement is its own module under scripts/bench/. Every module runs once per engine
 * (`--engines=server,pglite`, both by default; bench/database.ts), so the report shows the
 * PostgreSQL server and the PGlite fallback side by side, from one run on the same machine.
 */
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { MODULES } from "./bench/modules";
import { engineLabel, type BenchEngine } from "./bench/database";
import { settingsFor, type Mode } from "./bench/settings";
import { findPostgresServer } from "../launcher/embedded/postgres-cluster";

const { values } = parseArgs({
  options: { quick: { type: "boolean" }, smoke: { type: "boolean" }, only: { type: "string" }, out: { type: "string" }, engines: { type: "string" } },
});
const mode: Mode = values.smoke ? "smoke" : values.quick ? "quick" : "full";
const settings = settingsFor(mode);
const only = values.only?.split(",").map((name) => name.trim());
const selected = MODULES.filter((module) => !only || only.includes(module.name));
if (selected.length === 0) throw new Error(`--only names no module; known: ${MODULES.map((m) => m.name).join(", ")}`);
const engines = (values.engines ?? "server,pglite").split(",").map((name) => name.trim()) as BenchEngine[];
if (engines.some((engine) => engine !== "server" && engine !== "pglite")) throw new Error("--engines takes server and/or pglite");
if (engines.includes("server") && !process.env.BENCH_DATABASE_URL) {
  const server = findPostgresServer();
  if (!server.found) throw new Error(`${server.reason}\nRun \`bash scripts/ensure-deps.sh\` as root, or bench PGlite alone with --engines=pglite.`);
}

// Ctrl-C or a timeout: exit normally so every process the stacks started is killed (stack.ts).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

const loadBefore = os.loadavg();
const started = new Date();
const sections: string[] = [];
for (const module of selected) {
  const parts: string[] = [];
  for (const engine of engines) {
    process.env.BENCH_ENGINE = engine;
    const t0 = performance.now();
    process.stderr.write(`bench: ${module.name} on ${engine}…\n`);
    const body = await module.run(settings);
    const seconds = (performance.now() - t0) / 1000;
    process.stderr.write(`bench: ${module.name} on ${engine} done in ${seconds.toFixed(0)} s\n`);
    parts.push(
      `### On ${engineLabel(engine)}\n\n${demoteHeadings(body)}\n\n_Module \`scripts/bench/${module.name}.ts\` on \`${engine}\`, ${seconds.toFixed(0)} s._`,
    );
  }
  sections.push(`## ${module.title}\n\n${parts.join("\n\n")}`);
  // Written after every module, so a run cut short still leaves what it measured.
  writeReport(false);
}
writeReport(true);
process.exit(0);

/** A module's own `###` headings sit under the engine's now. */
function demoteHeadings(body: string): string {
  return body.replace(/^(#{3,}) /gm, "#$1 ");
}

function writeReport(finished: boolean): void {
  const loadAfter = os.loadavg();

  const redisVersion = (() => {
    try {
      return (
        execSync("redis-server --version", { encoding: "utf8" })
          .trim()
          .match(/v=(\S+)/)?.[1] ?? "?"
      );
    } catch {
      return "?";
    }
  })();
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(" / ");
  const header = `# Benchmark results${mode === "full" ? "" : ` (${mode})`}

Reproduce with \`npm run bench\` (\`npm run bench -- --quick\` for the smaller development run).
Percentiles come from one run; ratios compare against a baseline taken in the same run.
What these figures led to, with before and after, is in [optimisations.md](optimisations.md).

- **Date:** ${started.toISOString().replace("T", " ").slice(0, 16)} UTC, ${Math.round((Date.now() - started.getTime()) / 1000)} s in all
- **Machine:** ${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}
- **Software:** Node ${process.version}, redis-server ${redisVersion}; databases, each module run on each in turn: ${engines.map((engine) => `**${engine}**: ${engineLabel(engine)}`).join("; ")}
- **Load average (1 / 5 / 15 min):** before ${load(loadBefore)}, after ${load(loadAfter)}
- **Settings:** \`${JSON.stringify(settings)}\`
- Each part runs in its own process (redis-server, Postgres, the bench model, each server, each worker, and the bench clients), started from its real entry point.
`;
  const report = `${header}${finished ? "" : `\n_Partial: ${sections.length} of ${selected.length} modules so far._\n`}\n${sections.join("\n\n")}\n`;
  const out = values.out ?? (mode === "full" ? "bench/results.md" : `bench/results-${mode}.md`);
  writeFileSync(out, report);
  if (finished) process.stdout.write(report);
}
