/**
 * Summarises a V8 CPU profile written with BENCH_CPU_PROFILE (scripts/bench/probe.mjs): self
 * time by package (node_modules/<name>, node:<module>, or our file), the hottest functions, and
 * inclusive time of our own functions (server/, workers/, queues/, db/, lib/). Percentages are of
 * the process's busy time (idle samples left out).
 *
 *   node scripts/bench/profile-summary.mjs <file.cpuprofile> [top]
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node scripts/bench/profile-summary.mjs <file.cpuprofile> [top]\n");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;

const OURS = /^(server|workers|queues|db|lib|scripts)\//;
function packageOf(frame) {
  if (["(idle)", "(garbage collector)", "(program)"].includes(frame.functionName)) return frame.functionName;
  const url = frame.url;
  if (!url) return "(native)";
  const dependency = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (dependency) return dependency[1];
  if (url.startsWith("node:") || url.startsWith("wasm:")) return url.replace(/^(wasm:\/\/wasm)\/.*$/, "$1");
  return relative(process.cwd(), url.replace(/^file:\/\//, "").replace(/\?.*$/, ""));
}
const label = (frame) => `${frame.functionName || "(anonymous)"} ${packageOf(frame)}:${frame.lineNumber + 1}`;

const samples = new Map();
for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1);
const idle = [...samples].filter(([id]) => nodes.get(id).callFrame.functionName === "(idle)").reduce((sum, [, n]) => sum + n, 0);
const busy = profile.samples.length - idle;

const selfByPackage = new Map();
const selfByFunction = new Map();
const inclusiveOurs = new Map();
for (const [id, count] of samples) {
  const frame = nodes.get(id).callFrame;
  if (frame.functionName === "(idle)") continue;
  const add = (map, key) => map.set(key, (map.get(key) ?? 0) + count);
  add(selfByPackage, packageOf(frame));
  add(selfByFunction, label(frame));
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const ancestor = nodes.get(at).callFrame;
    const key = label(ancestor);
    if (OURS.test(packageOf(ancestor)) && !seen.has(key)) {
      seen.add(key);
      add(inclusiveOurs, key);
    }
  }
}

const print = (title, map) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, count] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((count / busy) * 100).toFixed(1).padStart(6)} % ${(count * msPerSample).toFixed(0).padStart(7)} ms  ${key}\n`);
  }
};
process.stdout.write(`${file}: busy ${(busy * msPerSample).toFixed(0)} ms of ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms\n`);
print("self time by package", selfByPackage);
print("self time by function", selfByFunction);
print("inclusive time of our functions", inclusiveOurs);
