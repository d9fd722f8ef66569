/**
 * The production build (scripts/build.ts, what the Docker image runs): bundled into a temporary
 * folder, the compiled server answers /healthz and a compiled worker runs the admin's upload
 * journey — one file of every supported format, each COMPLETED — which proves the extraction
 * threads load their compiled bundle, since from dist/ there is no TypeScript loader and no
 * thread-entry.mjs to fall back on — and applies an integration's bulk catalog import.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect } from "chai";
import { api, login, waitFor } from "../harness/client";
import { ingestEveryFormat } from "../support/ingestion-journey";
import { useStack, type Stack } from "../support/stack";

const INGEST_QUEUES = ["ingest-extract", "ingest-chunk", "ingest-embed"];
/** What the compiled worker serves alone during the journey: ingestion and bulk catalog imports. */
const COMPILED_QUEUES = [...INGEST_QUEUES, "catalog-import"];

describe("the compiled production build", function () {
  this.timeout(180_000);
  let stack: Stack;
  let out: string;
  const children: ChildProcess[] = [];

  before(async function () {
    this.timeout(180_000);
    stack = await useStack();
    out = mkdtempSync(join(tmpdir(), "skillnet-build-"));
    // Bundles import npm packages by name: give them the project's node_modules, as the image does.
    symlinkSync(resolve("node_modules"), join(out, "node_modules"), "dir");
    execFileSync(process.execPath, ["--import", "tsx", "scripts/build.ts", "--out-dir", join(out, "dist")], { stdio: "pipe" });
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await Promise.all(stack.workers.workers.filter((w) => COMPILED_QUEUES.includes(w.name)).map((w) => w.resume()));
    rmSync(out, { recursive: true, force: true });
  });

  /** Starts `node dist/<entry>` with no loader at all (no --import, no NODE_OPTIONS). */
  async function startCompiled(entry: string, env: Record<string, string>, ready: RegExp): Promise<RegExpMatchArray> {
    const child = spawn(process.execPath, [join(out, "dist", entry)], {
      cwd: out,
      env: { PATH: process.env.PATH ?? "", ...stack.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    return waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`${entry} exited (${child.exitCode}):\n${output}`);
        return output.match(ready);
      },
      60_000,
      `${entry} READY`,
    );
  }

  it("bundles every entry point and the extraction thread, with no TypeScript left to load", () => {
    for (const file of ["server/main.js", "workers/main.js", "ops/cli/prepare-database-cli.js", "ops/cli/org.js", "workers/extraction-thread.js"]) {
      expect(existsSync(join(out, "dist", file)), file).to.equal(true);
    }
    const worker = readFileSync(join(out, "dist/workers/main.js"), "utf8");
    expect(worker).to.include('new URL("./extraction-thread.js", import.meta.url)');
    expect(worker).to.not.match(/from "tsx|import\("tsx/);
  });

  it("runs the organisation CLI from the image's bundle (node dist/ops/cli/org.js)", () => {
    const listed = spawnSync(process.execPath, [join(out, "dist/ops/cli/org.js"), "list", "--json"], {
      cwd: out,
      env: { PATH: process.env.PATH ?? "", ...stack.env },
      encoding: "utf8",
    });
    expect(listed.status, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).organisations.map((org: { slug: string }) => org.slug)).to.include("acme");
  });

  it("has a tracing preload that hooks pg and ioredis when an OTLP endpoint is set, and loads nothing otherwise", () => {
    const check = join(out, "hooks.mjs");
    writeFileSync(
      check,
      'import pg from "pg"; import { Redis } from "ioredis";\n' +
        "const otel = Object.keys(await import('node:module').then((m) => m.createRequire(import.meta.url).cache)).some((f) => f.includes('@opentelemetry/sdk-trace'));\n" +
        "console.log(JSON.stringify({ pg: Boolean(pg.Client.prototype.query.__wrapped), ioredis: Boolean(Redis.prototype.sendCommand.__wrapped), otel }));\n",
    );
    const run = (env: Record<string, string>) =>
      JSON.parse(
        execFileSync(process.execPath, ["--import", "./dist/telemetry/register.js", check], {
          cwd: out,
          env: { PATH: process.env.PATH ?? "", ...env },
          encoding: "utf8",
        }),
      );
    // Port 9 (discard): nothing is exported, the hooks are what this checks; the trace itself is test/e2e/observability.test.ts.
    expect(run({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })).to.deep.equal({ pg: true, ioredis: true, otel: true });
    expect(run({})).to.deep.equal({ pg: false, ioredis: false, otel: false });
  });

  it("serves /healthz from the compiled server, indexes one upload of every format and applies a catalog import on a compiled worker", async () => {
    const [, url] = (await startCompiled("server/main.js", { PORT: "0", HOST: "127.0.0.1" }, /^READY server (\S+)/m)) as [string, string];
    const health = await fetch(`${url}/healthz`);
    expect(health.status).to.equal(200);

    // Only the compiled worker serves these queues during this test.
    await Promise.all(stack.workers.workers.filter((w) => COMPILED_QUEUES.includes(w.name)).map((w) => w.pause()));
    await startCompiled("workers/main.js", { WORKER_QUEUES: COMPILED_QUEUES.join(",") }, /^READY workers/m);

    const { token } = await login(url, "admin@example.com");
    await ingestEveryFormat(url, token, `compiled${Date.now().toString(36)}`);

    const keys = await api(url, "POST", "/api/v1/admin/integration-keys", { token, body: { name: "compiled build", scopes: ["catalog:write"] } });
    const suffix = Date.now().toString(36);
    const file = [
      { type: "module", external_id: `build-m-${suffix}`, course: `build-c-${suffix}`, title: "Basics", position: 1 },
      { type: "course", external_id: `build-c-${suffix}`, title: "From the compiled build", language: "pt" },
      { type: "lesson", external_id: `build-l-${suffix}`, module: `build-m-${suffix}`, title: "One", content: "# Um", position: 1 },
    ];
    const posted = await fetch(`${url}/api/v1/integrations/catalog/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.body.key}`, "content-type": "application/x-ndjson" },
      body: file.map((record) => JSON.stringify(record)).join("\n"),
    });
    expect(posted.status).to.equal(202);
    const { import: received } = (await posted.json()) as { import: { id: string } };
    const ended = await waitFor(
      async () => {
        const read = await api(url, "GET", `/api/v1/admin/catalog-imports/${received.id}`, { token });
        return read.body.import.status === "completed" ? read.body.import : undefined;
      },
      30_000,
      "the import to complete on the compiled worker",
    );
    expect(ended.counts).to.deep.equal({ created: 3, updated: 0, unchanged: 0, deleted: 0, failed: 0 });
    // The demo organisation is shared by every suite: the course goes again (its module and lesson with it).
    const removed = await api(url, "DELETE", `/api/v1/integrations/catalog/courses/build-c-${suffix}`, { token: keys.body.key });
    expect(removed.body.result).to.equal("deleted");
    await api(url, "DELETE", `/api/v1/admin/integration-keys/${keys.body.integration_key.id}`, { token });
  });
});
