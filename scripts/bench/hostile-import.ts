/**
 * Measure 11, hostile bulk imports (issue 44; security review F1): the product as `npm start` runs
 * it (one server, one worker serving every queue, launched-product.ts), against the bench model.
 * Organisation A's employee asks the tutor turn after turn, first on an idle product, then while
 * organisation B keeps its three import slots busy with 32 MiB hostile files (2-byte lines, a JSON
 * array of 16 million numbers, NDJSON lines of records nested 2 million levels deep). Reported:
 * A's time from POST to the first token and to `done` in both phases (goal: first token within 2×
 * of idle), turns lost, restarted or failed, the worker's event-loop delay in each phase, and B's
 * imports (how many ended, how).
 */
import { spawnUntilReady } from "../../launcher/embedded/child-process";
import { BenchSession, devLogin, type TurnRecord } from "./clients";
import { launchProduct, type LaunchedProduct } from "./launched-product";
import type { BenchSettings } from "./settings";
import { fmt, SUMMARY_HEADERS, sleep, summaryRow, table } from "./stats";

const QUESTIONS = [
  "How many days do I have to return an item for a refund?",
  "Who approves travel expenses above the limit?",
  "What do I do before cleaning the press?",
  "Where do I find the safety training schedule?",
];

/** The bench model's pace: a short answer, so a phase has many first tokens. */
const MODEL = { firstTokenMs: 100, tokens: 20, intervalMs: 20 };

/** The three hostile files, each at the byte limit (32 MiB) or `mib`. */
function hostileFiles(mib: number): Array<{ name: string; type: string; body: Buffer }> {
  const bytes = mib * 1024 * 1024;
  const deepLine = (size: number) => {
    const depth = Math.floor((size - 40) / 2);
    return `{"type":"exercise","answer":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  };
  const lineBytes = 4 * 1024 * 1024 - 64;
  return [
    { name: "2-byte lines", type: "application/x-ndjson", body: Buffer.from("x\n".repeat(bytes / 2)) },
    { name: "JSON array of numbers", type: "application/json", body: Buffer.from(`[${"1,".repeat(bytes / 2 - 2)}1]`) },
    {
      name: "records nested 2 M deep",
      type: "application/x-ndjson",
      body: Buffer.from(Array.from({ length: Math.floor(bytes / (lineBytes + 1)) }, () => deepLine(lineBytes)).join("\n")),
    },
  ];
}

interface ImportOutcome {
  name: string;
  status: string;
  total: number | null;
  ms: number;
}

/** B keeps its import slots busy with hostile files until `stop()`; returns what ended. */
function hostileLoad(product: LaunchedProduct, key: string, files: ReturnType<typeof hostileFiles>) {
  let running = true;
  const outcomes: ImportOutcome[] = [];
  const inFlight = new Map<string, { name: string; at: number }>();
  let posted = 0;
  const headers = { authorization: `Bearer ${key}` };
  const loop = (async () => {
    let next = 0;
    while (running) {
      if (inFlight.size < 3) {
        const file = files[next % files.length]!;
        const response = await fetch(`${product.baseUrl}/api/v1/integrations/catalog/imports`, {
          method: "POST",
          headers: { ...headers, "content-type": file.type },
          body: file.body,
        });
        if (response.status === 202) {
          const { import: created } = (await response.json()) as { import: { id: string } };
          inFlight.set(created.id, { name: file.name, at: performance.now() });
          posted++;
          next++;
          continue;
        }
        await response.body?.cancel();
      }
      await sleep(250);
      const list = await fetch(`${product.baseUrl}/api/v1/integrations/catalog/imports?limit=20`, { headers });
      const { imports } = (await list.json()) as { imports: Array<{ id: string; status: string; total: number | null }> };
      for (const item of imports) {
        const started = inFlight.get(item.id);
        if (!started || (item.status !== "completed" && item.status !== "failed")) continue;
        inFlight.delete(item.id);
        outcomes.push({ name: started.name, status: item.status, total: item.total, ms: performance.now() - started.at });
      }
    }
  })();
  return {
    busy: () => inFlight.size > 0,
    async stop() {
      running = false;
      await loop;
      return { outcomes, posted, unfinished: inFlight.size };
    },
  };
}

async function turns(session: BenchSession, count: number, counted: (record: TurnRecord) => boolean = () => true): Promise<TurnRecord[]> {
  const records: TurnRecord[] = [];
  for (let i = 0; records.length < count; i++) {
    const record = await session.turn(QUESTIONS[i % QUESTIONS.length]);
    if (counted(record)) records.push(record);
  }
  return records;
}

const firstTokenMs = (records: TurnRecord[]) => records.filter((r) => r.firstToken !== undefined).map((r) => r.firstToken! - r.posted);
const doneMs = (records: TurnRecord[]) => records.filter((r) => r.done !== undefined && !r.failed).map((r) => r.done! - r.posted);
const toModel = (records: TurnRecord[]) => records.filter((r) => r.modelFirstToken).map((r) => r.modelFirstToken!.received - r.posted);
const fromModel = (records: TurnRecord[]) => records.filter((r) => r.modelFirstToken && r.firstToken).map((r) => r.firstToken! - r.modelFirstToken!.written);
const accepted = (records: TurnRecord[]) => records.filter((r) => r.accepted).map((r) => r.accepted - r.posted);
const restarted = (records: TurnRecord[]) => records.filter((r) => Object.keys(r.stages).some((stage) => stage.endsWith(":restart"))).length;

async function organisationB(product: LaunchedProduct): Promise<string> {
  const operator = await devLogin(product.baseUrl, "admin@example.com");
  const created = await fetch(`${product.baseUrl}/api/v1/ops/orgs`, {
    method: "POST",
    headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Hostile Co", slug: "hostile", admin: { email: "boss@hostile.test", name: "Boss" } }),
  });
  if (created.status !== 201 && created.status !== 200) throw new Error(`creating organisation B answered ${created.status}: ${await created.text()}`);
  const boss = await devLogin(product.baseUrl, "boss@hostile.test");
  const key = await fetch(`${product.baseUrl}/api/v1/admin/integration-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${boss}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bomb", scopes: ["catalog:write"] }),
  });
  return ((await key.json()) as { key: string }).key;
}

export const hostileImportModule = {
  name: "hostile-import",
  title: "11. Another organisation's hostile bulk imports, through `npm start`",
  async run(settings: BenchSettings): Promise<string> {
    const smoke = settings.mode === "smoke";
    const counted = smoke ? 5 : 20;
    const mib = smoke ? 8 : 32;
    const model = await spawnUntilReady(process.execPath, ["--import", "tsx", "scripts/bench/model-server.ts"], {
      name: "model",
      readyPattern: /^READY (\S+)/,
      timeoutMs: 30_000,
    });
    const product = await launchProduct(model.match[1]!, model.child);
    try {
      await product.setModel(MODEL);
      const keyB = await organisationB(product);
      const session = await BenchSession.open(product.baseUrl, await devLogin(product.baseUrl));
      const files = hostileFiles(mib);
      try {
        await turns(session, 2);
        await product.probeWindow({ stampAges: false });
        const idle = await turns(session, counted);
        const idleProbes = await product.probeWindow({ stampAges: false });
        const load = hostileLoad(product, keyB, files);
        while (!load.busy()) await sleep(50);
        // Only turns asked while one of B's imports was in flight count.
        const during = await turns(session, counted, () => load.busy());
        const hostileProbes = await product.probeWindow({ stampAges: false });
        const imports = await load.stop();
        const ratio = (p: number) => {
          const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
          const at = (values: number[]) => sorted(values)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
          return at(firstTokenMs(during)) / at(firstTokenMs(idle));
        };
        const lost = (records: TurnRecord[]) => records.filter((r) => r.failed).map((r) => r.failed);
        return [
          `Organisation A's employee asks the tutor, ${counted} turns counted per phase after 2 warm-up turns (model: ${MODEL.firstTokenMs} ms to the first token, ${MODEL.tokens} tokens ${MODEL.intervalMs} ms apart). ` +
            `During the hostile phase organisation B keeps its 3 import slots busy with ${mib} MiB files in turn (${files.map((f) => f.name).join(", ")}); only turns asked while one of B's imports was in flight are counted. One server, one worker (\`WORKER_QUEUES=all\`), the product's defaults.`,
          "",
          table(SUMMARY_HEADERS, [
            summaryRow("idle: POST → first token", firstTokenMs(idle)),
            summaryRow("B importing: POST → first token", firstTokenMs(during)),
            summaryRow("idle: POST → done", doneMs(idle)),
            summaryRow("B importing: POST → done", doneMs(during)),
            summaryRow("idle: POST → 202", accepted(idle)),
            summaryRow("B importing: POST → 202", accepted(during)),
            summaryRow("idle: POST → the model has the generation request", toModel(idle)),
            summaryRow("B importing: POST → the model has the generation request", toModel(during)),
            summaryRow("idle: model's first write → first token on the client", fromModel(idle)),
            summaryRow("B importing: model's first write → first token on the client", fromModel(during)),
          ]),
          "",
          `- First token, B importing ÷ idle: p50 ${fmt(ratio(50), 2)}×, p90 ${fmt(ratio(90), 2)}× (goal ≤ 2×).`,
          `- Turns failed: idle ${lost(idle).length}, B importing ${lost(during).length} (${lost(during).join(", ") || "none"}); restarted: ${restarted(idle)} / ${restarted(during)}.`,
          ...(["server", "worker"] as const).map((role) => {
            const delay = (probes: typeof idleProbes) => probes.find((p) => p.role === role)?.eventLoopDelay;
            const text = (d: ReturnType<typeof delay>) => (d ? `${fmt(d.p50)} / ${fmt(d.p99)} / ${fmt(d.max)}` : "—");
            return `- ${role === "server" ? "Server" : "Worker"} event-loop delay (ms), p50 / p99 / max: idle ${text(delay(idleProbes))}; B importing ${text(delay(hostileProbes))}.`;
          }),
          "",
          `B's imports: ${imports.posted} posted, ${imports.unfinished} still running when A's turns were done.`,
          "",
          table(
            ["file", "status", "records counted", "posted → ended ms"],
            imports.outcomes.map((o) => [o.name, o.status, o.total ?? "—", fmt(o.ms, 0)]),
          ),
        ].join("\n");
      } finally {
        session.close();
      }
    } finally {
      await product.stop();
      await model.child.stop(2_000);
    }
  },
};
