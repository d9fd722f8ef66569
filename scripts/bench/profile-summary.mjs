import { readFileSync } from "node:fs";
const file = process.argv[2];
const prof = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const counts = new Map();
for (const id of prof.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
const total = prof.samples.length;
const dt = (prof.endTime - prof.startTime) / 1000 / total; // ms per sample
const pkgOf = (url) => {
  if (!url) return "(native/idle)";
  const m = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith("node:")) return url;
  const w = url.match(/\/work\/main\/([^?]+)/);
  return w ? w[1] : url;
};
const byPkg = new Map();
const byFn = new Map();
for (const [id, c] of counts) {
  const n = byId.get(id);
  const f = n.callFrame;
  const pkg =
    f.functionName === "(idle)" ? "(idle)" : f.functionName === "(garbage collector)" ? "(gc)" : f.functionName === "(program)" ? "(program)" : pkgOf(f.url);
  byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + c);
  const key = `${f.functionName || "(anon)"} ${pkgOf(f.url)}:${f.lineNumber}`;
  byFn.set(key, (byFn.get(key) ?? 0) + c);
}
const idle = byPkg.get("(idle)") ?? 0;
console.log(file, "samples", total, "ms/sample", dt.toFixed(3), "busy ms", ((total - idle) * dt).toFixed(0));
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
console.log("--- by package (self) ---");
for (const [k, v] of top(byPkg, 25)) console.log(((v / (total - idle)) * 100).toFixed(1).padStart(5) + "%", (v * dt).toFixed(0).padStart(6), "ms", k);
console.log("--- by function (self) ---");
for (const [k, v] of top(byFn, 30)) console.log(((v / (total - idle)) * 100).toFixed(1).padStart(5) + "%", (v * dt).toFixed(0).padStart(6), "ms", k);
// inclusive time for our own functions
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, c] of counts) {
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const f = byId.get(cur).callFrame;
    const key = `${f.functionName || "(anon)"} ${pkgOf(f.url)}:${f.lineNumber}`;
    if (!seen.has(key) && /^(workers|queues|db|lib|server)\//.test(pkgOf(f.url))) {
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + c);
    }
    cur = parent.get(cur);
  }
}
console.log("--- our functions (inclusive) ---");
for (const [k, v] of top(incl, 40)) console.log(((v / (total - idle)) * 100).toFixed(1).padStart(5) + "%", (v * dt).toFixed(0).padStart(6), "ms", k);
