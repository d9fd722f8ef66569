/**
 * `npm start`'s launcher (launcher/start.ts, the entry scripts/start.sh runs) on a temporary
 * DATA_DIR and free ports: a killed worker child is restarted and the product keeps answering;
 * a launcher killed with SIGKILL takes its children with it, and a redis-server that still
 * outlived it (its watchdog killed too) is recognised from the data dir and stopped by the
 * next launcher, which then comes up.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { commandLineOf, recordPid, stopStaleProcesses } from "../../launcher/embedded/pidfiles";
import { waitFor } from "../harness/client";
import {
  answersATurn,
  hasExited,
  healthy as answersHealthz,
  isAlive,
  launcherSetup,
  recordedPids as pidsIn,
  startLauncher as start,
  type Launcher,
  type LauncherSetup,
} from "../support/launcher";

describe("the npm start launcher", function () {
  this.timeout(300_000);
  let setup: LauncherSetup;
  let dataDir: string;
  let baseUrl: string;
  const launchers: Launcher[] = [];

  before(async () => {
    setup = await launcherSetup();
    ({ dataDir, baseUrl } = setup);
  });

  after(async () => {
    for (const launcher of launchers) if (!hasExited(launcher)) launcher.process.kill("SIGTERM");
    await waitFor(() => launchers.every(hasExited), 30_000, "launchers stopped").catch(() => undefined);
    for (const pid of Object.values(recordedPids())) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  function startLauncher(): Launcher {
    const launcher = start(setup);
    launchers.push(launcher);
    return launcher;
  }

  const healthy = (launcher: Launcher) => answersHealthz(launcher, baseUrl);
  const recordedPids = () => pidsIn(dataDir);

  it("restarts a worker that was killed, and the product keeps answering", async () => {
    const launcher = startLauncher();
    await healthy(launcher);
    const killed = recordedPids().worker!;
    expect(isAlive(killed)).to.equal(true);
    process.kill(killed, "SIGKILL");

    await waitFor(() => launcher.output().includes("› worker restarted"), 60_000, "the worker restart");
    expect(launcher.output()).to.match(/✗ worker exited \(code null, signal SIGKILL\); restarting it in 1 s/);
    const restarted = recordedPids().worker!;
    expect(restarted).to.not.equal(killed);
    expect(isAlive(restarted)).to.equal(true);
    expect(launcher.process.exitCode, "the launcher kept running").to.equal(null);
    await answersATurn(baseUrl);
  });

  it("after a SIGKILL, its children stop; a stale redis-server is stopped by the next launcher, which comes up", async () => {
    const first = launchers[0]!;
    const pids = recordedPids();
    for (const name of ["postgres", "redis-watchdog", "redis-server", "offline-llm", "worker", "server"])
      expect(isAlive(pids[name]!), `${name} running`).to.equal(true);
    // The worst case the issue saw: the launcher and the watchdog that guards redis-server both die at once.
    process.kill(pids["redis-watchdog"]!, "SIGKILL");
    first.process.kill("SIGKILL");

    const followers = ["postgres", "offline-llm", "worker", "server"];
    await waitFor(() => followers.every((name) => !isAlive(pids[name]!)), 30_000, `${followers.join(", ")} to exit with their launcher`);
    expect(commandLineOf(pids["redis-server"]!), "redis-server outlived its launcher").to.include("redis-server");

    const second = startLauncher();
    await healthy(second);
    expect(second.output()).to.match(/stopping a redis-server left running by an earlier launcher/);
    expect(isAlive(pids["redis-server"]!)).to.equal(false);
    await answersATurn(baseUrl);

    // With its watchdog alive, redis-server goes with a killed launcher too.
    const now = recordedPids();
    second.process.kill("SIGKILL");
    await waitFor(
      () => ["redis-server", "redis-watchdog", "postgres", "offline-llm", "worker", "server"].every((name) => !isAlive(now[name]!)),
      30_000,
      "every child to exit with the second launcher",
    );
  });

  it("leaves alone a recorded pid that now belongs to another program", async () => {
    const other = mkdtempSync(join(tmpdir(), "skillnet-pids-"));
    const stale = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "stale-marker-1"], { stdio: "ignore" });
    const unrelated = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "something-else"], { stdio: "ignore" });
    try {
      recordPid(other, "stale", { pid: stale.pid!, marker: "stale-marker-1" });
      recordPid(other, "reused", { pid: unrelated.pid!, marker: "stale-marker-2" });
      const lines: string[] = [];
      expect(await stopStaleProcesses(other, (line) => lines.push(line))).to.deep.equal(["stale"]);
      await waitFor(() => stale.exitCode !== null || stale.signalCode !== null, 10_000, "the stale process to stop");
      expect(unrelated.exitCode).to.equal(null);
      expect(lines.join("\n")).to.include(`pid ${stale.pid}`);
      expect(readdirSync(join(other, "run"))).to.deep.equal([]);
    } finally {
      stale.kill("SIGKILL");
      unrelated.kill("SIGKILL");
      rmSync(other, { recursive: true, force: true });
    }
  });
});
