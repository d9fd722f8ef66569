/**
 * Measure 10, bulk catalog imports (issue 33): a realistic catalog (test/harness/catalog-fixture.ts,
 * shuffled so the job has to order it) sent as one NDJSON import through the integration API, on
 * one server and one worker at the product's defaults. Reported: the request's time, the import's
 * time from received to completed and its records per second, the CPU and peak memory of each
 * process meanwhile; then the same file again (everything `unchanged`), and a file with 1 % of the
 * lessons edited (only those `updated`).
 */
import pg from "pg";
import { catalogPeople, realisticCatalog } from "../../test/harness/catalog-fixture";
import { devLogin } from "./clients";
import { processTable } from "./report";
import type { BenchSettings } from "./settings";
import { cpuMeter, processUsage, startBenchStack, type BenchStack } from "./stack";
import { fmt, sleep, table } from "./stats";

interface ImportState {
  status: string;
  total: number | null;
  counts: Record<string, number>;
  created_at: string;
  finished_at: string | null;
}

async function addPeople(stack: BenchStack, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT id FROM organizations WHERE slug = 'acme'");
    for (const person of catalogPeople("bench", count)) {
      await client.query("INSERT INTO users (org_id, email, name, role, external_id) VALUES ($1, $2, $2, 'employee', $3) ON CONFLICT DO NOTHING", [
        rows[0].id,
        person.email,
        person.external_id,
      ]);
    }
  } finally {
    await client.end();
  }
}

async function runImport(stack: BenchStack, key: string, body: string) {
  const base = stack.servers[0]!;
  const meter = cpuMeter(stack.processes);
  const peaks = new Map(stack.processes.map((p) => [p.role, 0]));
  const sampler = setInterval(() => {
    for (const p of stack.processes) peaks.set(p.role, Math.max(peaks.get(p.role)!, processUsage(p.pid).rssMb || 0));
  }, 100);
  const t0 = performance.now();
  const response = await fetch(`${base}/api/v1/integrations/catalog/imports`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
    body,
  });
  const requestMs = performance.now() - t0;
  if (response.status !== 202) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  const { import: created } = (await response.json()) as { import: { id: string } };
  let state: ImportState;
  for (;;) {
    const read = await fetch(`${base}/api/v1/integrations/catalog/imports/${created.id}?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    state = ((await read.json()) as { import: ImportState }).import;
    if (state.status === "completed" || state.status === "failed") break;
    await sleep(100);
  }
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  const usage = meter.stop().map((row) => ({ ...row, rssMb: Math.max(row.rssMb, peaks.get(row.role) ?? 0) }));
  const importMs = Date.parse(state.finished_at!) - Date.parse(state.created_at);
  return { requestMs, importMs, wallMs, state, usage };
}

export const catalogImportModule = {
  name: "catalog-import",
  title: "Bulk catalog import (integration API, one server + one worker)",
  async run(settings: BenchSettings): Promise<string> {
    const shape = settings.catalog;
    const stack = await startBenchStack({ servers: 1, workers: 1 });
    try {
      await addPeople(stack, shape.people);
      const admin = await devLogin(stack.servers[0]!, "admin@example.com");
      const created = await fetch(`${stack.servers[0]}/api/v1/admin/integration-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "bench", scopes: ["catalog:write"] }),
      });
      const { key } = (await created.json()) as { key: string };
      const { lines, counts } = realisticCatalog("bench", shape);
      const file = lines.join("\n");
      const first = await runImport(stack, key, file);
      const again = await runImport(stack, key, file);
      // 1 % of the lessons edited: only they change.
      let edited = 0;
      const step = Math.max(1, Math.round(counts.lesson! / (counts.lesson! * 0.01)));
      let seen = 0;
      const changedLines = lines.map((line) => {
        if (!line.startsWith('{"type":"lesson"')) return line;
        if (seen++ % step !== 0) return line;
        edited++;
        const record = JSON.parse(line);
        return JSON.stringify({ ...record, content: `${record.content}\n\nEdited.` });
      });
      const changed = await runImport(stack, key, changedLines.join("\n"));
      const row = (label: string, run: Awaited<ReturnType<typeof runImport>>) => [
        label,
        run.state.total ?? 0,
        fmt(run.requestMs, 0),
        fmt(run.importMs, 0),
        fmt(((run.state.total ?? 0) / run.importMs) * 1000, 0),
        `${run.state.counts.created}/${run.state.counts.updated}/${run.state.counts.unchanged}/${run.state.counts.deleted}/${run.state.counts.failed}`,
      ];
      const mb = (Buffer.byteLength(file) / 1024 / 1024).toFixed(1);
      return [
        `The file: ${lines.length} records, ${mb} MB of NDJSON — ${counts.course} courses, ${counts.module} modules, ${counts.lesson} lessons, ` +
          `${counts.exercise} exercises, ${counts.enrollment} enrolments, ${counts.skill_level} skill levels, ${counts.exercise_attempt} attempts, ` +
          `${counts.skill} skills; shuffled. The edited run changes ${edited} lessons.`,
        "",
        table(
          ["run", "records", "request ms", "received → completed ms", "records/s", "created/updated/unchanged/deleted/failed"],
          [row("first import", first), row("same file again", again), row(`${edited} lessons edited`, changed)],
        ),
        "",
        "CPU (share of one core) and peak resident memory of each process during the first import:",
        "",
        processTable(first.usage),
      ].join("\n");
    } finally {
      await stack.stop();
    }
  },
};
