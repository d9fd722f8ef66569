/**
 * `npm start`'s embedded database (launcher/embedded/database-choice.ts, the Postgres part of
 * launcher/start.ts): which engine EMBEDDED_POSTGRES picks for what DATA_DIR holds, and the
 * launcher on the real server: its own cluster under DATA_DIR/postgres, a postmaster killed with
 * SIGKILL restarted by the launcher with the product answering again, stopped with it, and the
 * same cluster taken up by the next launcher.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { findFreePort } from "../../../launcher/embedded/child-process";
import { chooseEmbeddedDatabase } from "../../../launcher/embedded/database-choice";
import { findPostgresServer } from "../../../launcher/embedded/postgres-cluster";
import { waitFor } from "../../harness/client";
import { answersATurn, isAlive } from "../../support/launcher";

const installed = () => ({ found: true as const, bindir: "/opt/pg/bin" });
const absent = () => ({ found: false as const, reason: "no server here" });

describe("EMBEDDED_POSTGRES: which embedded database npm start runs", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), "skillnet-choice-"));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it("auto: a new DATA_DIR gets the server when one is installed, else PGlite with the reason", () => {
    expect(chooseEmbeddedDatabase("auto", dataDir, installed)).to.include({ engine: "server", bindir: "/opt/pg/bin", dataDir: join(dataDir, "postgres") });
    const fallback = chooseEmbeddedDatabase("auto", dataDir, absent);
    expect(fallback).to.include({ engine: "pglite", dataDir: join(dataDir, "pglite") });
    expect(fallback.why).to.include("no server here");
  });

  it("auto: a DATA_DIR from an earlier PGlite run stays on PGlite; one holding a cluster stays on the server", () => {
    mkdirSync(join(dataDir, "pglite"));
    writeFileSync(join(dataDir, "pglite", "PG_VERSION"), "17\n");
    const kept = chooseEmbeddedDatabase("auto", dataDir, installed);
    expect(kept.engine).to.equal("pglite");
    expect(kept.why).to.include("earlier PGlite run").and.include("EMBEDDED_POSTGRES=server");

    mkdirSync(join(dataDir, "postgres"));
    writeFileSync(join(dataDir, "postgres", "PG_VERSION"), "15\n");
    expect(chooseEmbeddedDatabase("auto", dataDir, installed).engine).to.equal("server");
    // Data the server wrote is not silently swapped for an empty PGlite when the server went missing.
    expect(() => chooseEmbeddedDatabase("auto", dataDir, absent)).to.throw(/holds a PostgreSQL cluster, but no server here/);
  });

  it("auto: a DATA_DIR whose cluster lives outside it (postgres-location) stays on that cluster", () => {
    const outside = mkdtempSync(join(tmpdir(), "skillnet-choice-outside-"));
    try {
      mkdirSync(join(outside, "postgres"));
      writeFileSync(join(outside, "postgres", "PG_VERSION"), "15\n");
      writeFileSync(join(dataDir, "postgres-location"), `${join(outside, "postgres")}\n`);
      expect(chooseEmbeddedDatabase("auto", dataDir, installed)).to.include({ engine: "server", dataDir: join(outside, "postgres") });
      expect(chooseEmbeddedDatabase("auto", dataDir, installed).why).to.include(`${join(outside, "postgres")} holds a PostgreSQL cluster`);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("server and pglite force the engine; server without one installed is an error that says why", () => {
    mkdirSync(join(dataDir, "pglite"));
    writeFileSync(join(dataDir, "pglite", "PG_VERSION"), "17\n");
    expect(chooseEmbeddedDatabase("server", dataDir, installed).engine).to.equal("server");
    expect(chooseEmbeddedDatabase("pglite", dataDir, installed).engine).to.equal("pglite");
    expect(() => chooseEmbeddedDatabase("server", dataDir, absent)).to.throw("EMBEDDED_POSTGRES=server, but no server here");
  });
});

describe("the npm start launcher on its own PostgreSQL server", function () {
  this.timeout(300_000);
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let baseUrl: string;
  let launcher: { process: ChildProcess; output: () => string } | undefined;

  before(async function () {
    if (!findPostgresServer().found) this.skip();
    dataDir = mkdtempSync(join(tmpdir(), "skillnet-launcher-pg-"));
    // As root the cluster belongs to the postgres OS user, who must reach it.
    chmodSync(dataDir, 0o711);
    const [postgres, redis, llm, http] = await Promise.all([findFreePort(), findFreePort(), findFreePort(), findFreePort()]);
    baseUrl = `http://127.0.0.1:${http}`;
    env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: "warn", EMBEDDED_POSTGRES: "auto" };
    Object.assign(env, { EMBEDDED_POSTGRES_PORT: String(postgres), EMBEDDED_REDIS_PORT: String(redis), EMBEDDED_LLM_PORT: String(llm), PORT: String(http) });
  });

  after(async () => {
    if (launcher && launcher.process.exitCode === null) launcher.process.kill("SIGKILL");
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  function start(): { process: ChildProcess; output: () => string } {
    const child = spawn(process.execPath, ["--import", "tsx", "launcher/start.ts"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    launcher = { process: child, output: () => output };
    return launcher;
  }

  const ready = (running: { process: ChildProcess; output: () => string }) =>
    waitFor(
      async () => {
        if (running.process.exitCode !== null) throw new Error(`launcher exited (${running.process.exitCode}):\n${running.output()}`);
        return running.output().includes("skillnet-chat is running.") && (await fetch(`${baseUrl}/readyz`).catch(() => null))?.ok;
      },
      180_000,
      "the launcher to be ready",
    );
  const postmasterPid = (): number => Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);

  it("creates its cluster, says so, and restarts a SIGKILLed postmaster; the product answers again", async () => {
    const first = start();
    await ready(first);
    expect(first.output()).to.match(
      /starting embedded Postgres: PostgreSQL server from \S+, data in \S+\/postgres, because PostgreSQL with pgvector is installed/,
    );
    expect(first.output()).to.include("Embedded parts Postgres (PostgreSQL server)");
    await answersATurn(baseUrl);

    const killed = postmasterPid();
    process.kill(killed, "SIGKILL");
    await waitFor(() => first.output().includes("› postgres restarted"), 60_000, "the launcher to restart PostgreSQL");
    expect(postmasterPid()).to.not.equal(killed);
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`).catch(() => null))?.ok, 60_000, "readiness after the restart");
    await answersATurn(baseUrl);
    expect(first.process.exitCode, "the launcher kept running").to.equal(null);
  });

  it("stops its postmaster with it, and the next launcher takes up the same cluster", async () => {
    const pid = postmasterPid();
    launcher!.process.kill("SIGTERM");
    await waitFor(() => launcher!.process.exitCode !== null, 60_000, "the launcher to stop");
    await waitFor(() => !isAlive(pid), 30_000, "the postmaster to stop with the launcher");

    const second = start();
    await ready(second);
    expect(second.output()).to.match(/because \S+\/postgres holds a PostgreSQL cluster/);
    expect(second.output()).to.not.include("creating a PostgreSQL cluster");
    await answersATurn(baseUrl);
    second.process.kill("SIGTERM");
    await waitFor(() => second.process.exitCode !== null, 60_000, "the second launcher to stop");
  });
});
