/**
 * `npm start` as root from a checkout under a private home (issue 30): Debian makes /root 0700,
 * so the `postgres` OS user that runs the server cannot reach `.data/`. The launcher must still
 * run the PostgreSQL server — its cluster outside the checkout, recorded in DATA_DIR, the home's
 * permissions untouched — and deleting DATA_DIR must still start from zero.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { outsideClusterDir } from "../../launcher/embedded/cluster-home";
import { findPostgresServer, isCluster } from "../../launcher/embedded/postgres-cluster";
import { api, login, waitFor } from "../harness/client";
import { hasExited, healthy, isAlive, launcherSetup, recordedPids, startLauncher, type Launcher, type LauncherSetup } from "../support/launcher";

describe("npm start as root from a checkout in a 0700 home", function () {
  this.timeout(600_000);
  let home: string;
  let setup: LauncherSetup;
  let dataDir: string;
  const launchers: Launcher[] = [];

  before(async function () {
    if (process.getuid?.() !== 0 || !findPostgresServer().found) this.skip();
    // mkdtemp makes it 0700, as Debian makes /root; the checkout and its .data sit inside.
    home = mkdtempSync(join(tmpdir(), "skillnet-root-home-"));
    dataDir = join(home, "skillnet-chat", ".data");
    mkdirSync(dirname(dataDir));
    setup = await launcherSetup();
    rmSync(setup.dataDir, { recursive: true, force: true });
    setup = { ...setup, dataDir, env: { ...setup.env, DATA_DIR: dataDir } };
  });

  after(async () => {
    for (const launcher of launchers) if (!hasExited(launcher)) launcher.process.kill("SIGTERM");
    await waitFor(() => launchers.every(hasExited), 30_000, "launchers stopped").catch(() => undefined);
    if (dataDir) for (const pid of Object.values(recordedPids(dataDir))) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    if (home) rmSync(home, { recursive: true, force: true });
    if (dataDir) rmSync(dirname(outsideClusterDir(dataDir)), { recursive: true, force: true });
  });

  async function launch(): Promise<Launcher> {
    const launcher = startLauncher(setup);
    launchers.push(launcher);
    await healthy(launcher, setup.baseUrl).catch((error: Error) => {
      throw new Error(`${error.message}\n${launcher.output()}`);
    });
    const health = await api(setup.baseUrl, "GET", "/readyz");
    expect(health.status, JSON.stringify(health.body)).to.equal(200);
    const { token } = await login(setup.baseUrl, "employee@example.com");
    expect((await api(setup.baseUrl, "GET", "/api/v1/me", { token })).status).to.equal(200);
    return launcher;
  }

  async function stop(launcher: Launcher): Promise<void> {
    launcher.process.kill("SIGTERM");
    await waitFor(() => hasExited(launcher), 60_000, "the launcher to stop");
  }

  it("runs the PostgreSQL server with its cluster outside the home, says where, and leaves the home 0700", async () => {
    const cluster = outsideClusterDir(dataDir);
    const first = await launch();
    expect(first.output()).to.include("PostgreSQL server from").and.include(`data in ${cluster}`);
    expect(first.output()).to.include(`the postgres OS user cannot reach ${dataDir}`);
    expect(first.output()).to.not.include("PGlite");
    expect(statSync(home).mode & 0o777, "the home's mode").to.equal(0o700);
    expect(readFileSync(join(dataDir, "postgres-location"), "utf8").trim()).to.equal(cluster);
    expect(isCluster(cluster)).to.equal(true);
    expect(existsSync(join(dataDir, "postgres")), "nothing half-made inside the checkout").to.equal(false);
    await stop(first);

    // Deleting DATA_DIR starts from zero: the old cluster at that path is replaced by a new one.
    const before = readFileSync(join(cluster, "global", "pg_control"));
    rmSync(dataDir, { recursive: true, force: true });
    const fresh = await launch();
    expect(fresh.output()).to.include("was removed").and.include(`data in ${cluster}`);
    expect(readFileSync(join(cluster, "global", "pg_control")).equals(before), "a new cluster").to.equal(false);
    expect(statSync(home).mode & 0o777).to.equal(0o700);
    await stop(fresh);

    // A restart keeps it: auto follows the recorded cluster.
    const again = await launch();
    expect(again.output()).to.include(`${cluster} holds a PostgreSQL cluster`);
    await stop(again);
  });
});
