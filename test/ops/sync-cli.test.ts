/**
 * `npm run sync` as an operator runs it: the real CLI process (ops/cli/sync.ts) mirroring a folder
 * of 500 generated Markdown and text files into an organisation over the integration API, then
 * 20 edits, 10 renames (the documents keep their vectors), 10 deletions and touched-but-unchanged files; a SIGKILL mid-pass and a
 * re-run ending in the same state as an uninterrupted pass; an unsupported file reported, not
 * fatal; two sources that never remove each other's documents; the scheduled mode stopped by
 * SIGTERM after its pass; a key of another organisation refused before anything is touched.
 * Counts are asserted from the printed JSON and from the database.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { parseConfig } from "../../lib/config";
import { testEnv } from "../support/tunables";
import { type RunningServer, startServer } from "../../server/server";
import { waitFor } from "../harness/client";
import { dropOrganisations } from "../support/organizations";
import { newIntegrationKey } from "../support/sourced-documents";
import { stackSuite } from "../support/suite";
import { cleanUp, freshUser, type Person } from "../workers/admin/helpers";
import { freshOrganisation } from "../server/routes/allowance/helpers";

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function startSync(args: string[], key: string): { child: ChildProcess; done: Promise<Run>; output: () => string } {
  const env: Record<string, string | undefined> = { ...process.env, SKILLNET_KEY: key };
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "ops/cli/sync.ts", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<Run>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started) }));
  });
  return { child, done, output: () => stdout };
}

const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");

describe("ops/cli/sync.ts (npm run sync)", function () {
  const stack = stackSuite(this, { timeoutMs: 300_000, resetModel: false });
  const db = () => stack.server.deps.db;
  const figures: Record<string, number> = {};
  let folder: string;
  let orgId: string;
  let otherOrg: string;
  let slug: string;
  let admin: Person;
  let otherAdmin: Person;
  /** The folder as it should be mirrored: path → sha256 of its bytes. */
  const expected = new Map<string, string>();
  /**
   * The server the CLI talks to: the stack's, with a test-length upload window per key. At the
   * production 120 uploads a minute the 500-file first pass spent four minutes waiting out 429s;
   * the limits themselves are tested in test/server/limits.test.ts and the CLI's wait for a 429 in
   * test/unit/ops/sync-client.test.ts.
   */
  let server: RunningServer;

  const write = async (path: string, text: string) => {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), text);
    expected.set(path, sha256(text));
  };
  const sync = async (args: string[] = [], target = folder) => {
    const { key } = await newIntegrationKey(stack, admin.token, ["documents:write"]);
    return startSync([target, "--org", slug, "--source", "handbook", "--url", server.url, ...args], key);
  };
  const syncJson = async () => {
    const run = await (await sync(["--json"])).done;
    expect(run.code, run.stderr).to.equal(0);
    return { run, result: JSON.parse(run.stdout.trim().split("\n").at(-1)!) };
  };
  /** What the database holds for the handbook source: path → content hash. */
  const stored = async (): Promise<Map<string, string>> => {
    const rows: Array<{ external_id: string; content_hash: string }> = await db()("documents")
      .where({ org_id: orgId })
      .andWhereRaw("starts_with(external_id, 'handbook:')")
      .select("external_id", "content_hash");
    return new Map(rows.map((row) => [row.external_id.slice("handbook:".length), row.content_hash]));
  };
  const expectMirrored = async () => {
    const held = await stored();
    expect(held.size).to.equal(expected.size);
    expect(Object.fromEntries(held)).to.deep.equal(Object.fromEntries(expected));
  };

  before(async () => {
    server = await startServer(
      parseConfig(
        testEnv({
          ...process.env,
          RATE_LIMIT_UPLOADS_PER_MINUTE: "100000",
          RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: "100000",
          RATE_LIMIT_REINDEX_PER_MINUTE: "100000",
          RATE_LIMIT_ORG_REINDEX_PER_MINUTE: "100000",
        }),
      ),
      {
        port: 0,
        host: "127.0.0.1",
      },
    );
    orgId = await freshOrganisation(stack, "Sync CLI");
    otherOrg = await freshOrganisation(stack, "Sync CLI other");
    slug = (await db()("organizations").where({ id: orgId }).first("slug")).slug;
    admin = await freshUser(stack, { role: "admin", orgId });
    otherAdmin = await freshUser(stack, { role: "admin", orgId: otherOrg });
    folder = await mkdtemp(join(tmpdir(), "skillnet-sync-"));
    for (let i = 0; i < 500; i++) {
      const section = `team-${String(i % 10).padStart(2, "0")}`;
      const ext = i % 2 === 0 ? "md" : "txt";
      await write(
        `${section}/note-${String(i).padStart(3, "0")}.${ext}`,
        `# Note ${i}\n\nProcedure ${i} of ${section}: file the form within ${i % 30} days. Code n${i}x.\n`,
      );
    }
    // Not a supported format: reported, never sent, never fatal.
    await writeFile(join(folder, "team-00", "diagram.vsdx"), Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]));
    await writeFile(join(folder, ".DS_Store"), "hidden");
  });

  after(async () => {
    process.stdout.write(`      folder sync figures: ${JSON.stringify(figures)}\n`);
    await rm(folder, { recursive: true, force: true });
    await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await cleanUp(stack);
    await dropOrganisations(db(), [orgId, otherOrg]);
  });

  it("adds 500 files on the first pass and reports the unsupported one", async () => {
    const syncStarted = performance.now();
    const { run, result } = await syncJson();
    figures.first_sync_500_files_ms = run.ms;
    expect(result.counts).to.deep.equal({ added: 500, changed: 0, retried: 0, renamed: 0, kept: 0, removed: 0, skipped: 1, failed: 0 });
    expect(result.skipped).to.deep.equal([{ path: "team-00/diagram.vsdx", reason: "unsupported format" }]);
    expect(result.org).to.equal(slug);
    await expectMirrored();
    // A figure, never asserted: the sync's first call until the workers have indexed all 500.
    await waitFor(
      async () => {
        const row = await db()("documents").where({ org_id: orgId, status: "COMPLETED" }).count("* as n").first();
        return Number(row?.n) === 500;
      },
      280_000,
      "the 500 documents to be indexed",
    );
    figures.first_sync_500_files_indexed_ms = Math.round(performance.now() - syncStarted);
  });

  it("re-pushes 20 edits, renames 10 keeping their vectors, removes 10 deletions and keeps touched-but-unchanged files", async () => {
    const paths = [...expected.keys()].sort();
    const edited = paths.slice(0, 20);
    const renamed = paths.slice(20, 30);
    const deleted = paths.slice(30, 40);
    const touched = paths.slice(40, 50);
    for (const path of edited) await write(path, `${await readFile(join(folder, path), "utf8")}\nRevised: one more step.\n`);
    for (const path of renamed) {
      const to = path.replace("note-", "moved-");
      await rename(join(folder, path), join(folder, to));
      expected.set(to, expected.get(path)!);
      expected.delete(path);
    }
    for (const path of deleted) {
      await unlink(join(folder, path));
      expected.delete(path);
    }
    const later = new Date(Date.now() + 60_000);
    for (const path of touched) await utimes(join(folder, path), later, later);

    const idsBefore = new Map(
      (
        await db()("documents")
          .where({ org_id: orgId })
          .whereIn(
            "external_id",
            renamed.map((path) => `handbook:${path}`),
          )
          .select("id", "external_id")
      ).map((row: { id: string; external_id: string }) => [row.external_id.slice("handbook:".length).replace("note-", "moved-"), row.id]),
    );
    const chunksBefore = await db()("document_chunks")
      .whereIn("document_id", [...idsBefore.values()])
      .orderBy("id")
      .pluck("id");

    const { run, result } = await syncJson();
    figures.resync_after_changes_ms = run.ms;
    expect(result.counts).to.deep.equal({ added: 0, changed: 20, retried: 0, renamed: 10, kept: 460, removed: 10, skipped: 1, failed: 0 });
    expect(result.changed).to.deep.equal(edited);
    expect(result.renamed).to.deep.equal(renamed.map((path) => ({ from: path, to: path.replace("note-", "moved-") })));
    expect(result.removed).to.deep.equal(deleted);
    // A rename keeps the document, its chunks and their vectors: nothing is indexed again.
    for (const [path, id] of idsBefore) expect((await db()("documents").where({ id }).first("external_id")).external_id).to.equal(`handbook:${path}`);
    expect(
      await db()("document_chunks")
        .whereIn("document_id", [...idsBefore.values()])
        .orderBy("id")
        .pluck("id"),
    ).to.deep.equal(chunksBefore);
    for (const path of touched) expect(result.kept).to.include(path);
    await expectMirrored();

    const unchanged = await syncJson();
    figures.resync_unchanged_ms = unchanged.run.ms;
    expect(unchanged.result.counts).to.deep.equal({ added: 0, changed: 0, retried: 0, renamed: 0, kept: 490, removed: 0, skipped: 1, failed: 0 });
  });

  it("ends in the same state when a pass is SIGKILLed mid-way and run again", async () => {
    const paths = [...expected.keys()].sort();
    for (const path of paths.slice(100, 140)) await write(path, `Rewritten ${path}: the new procedure.\n`);
    for (let i = 0; i < 40; i++) await write(`fresh/added-${i}.md`, `# Fresh ${i}\n\nA new page, number ${i}.\n`);
    for (const path of paths.slice(200, 220)) {
      await unlink(join(folder, path));
      expected.delete(path);
    }
    const killed = await sync(["--concurrency", "2"]);
    await waitFor(() => (killed.output().match(/^(added|changed)/gm) ?? []).length >= 10, 60_000, "the pass to be sending files");
    killed.child.kill("SIGKILL");
    const cut = await killed.done;
    expect(cut.signal).to.equal("SIGKILL");
    const partial = await stored();
    const done = [...expected].filter(([path, hash]) => partial.get(path) === hash).length;
    const untouched = expected.size - 80; // 40 rewritten and 40 new files are what the pass sends
    expect(done, "the kill came mid-way: some files sent").to.be.greaterThan(untouched);
    expect(done, "the kill came mid-way: not all files sent").to.be.lessThan(expected.size);

    const rerun = await syncJson();
    expect(rerun.result.counts.failed).to.equal(0);
    const { added, changed, removed, renamed } = rerun.result.counts;
    expect(added + changed + removed + renamed, "the re-run finished what the killed pass left").to.be.greaterThan(0);
    await expectMirrored();
  });

  it("keeps two sources apart, and reports a file that cannot be read on every pass without sending it to be read again", async () => {
    const notes = await mkdtemp(join(tmpdir(), "skillnet-sync-notes-"));
    const runNotes = async () => {
      const { key } = await newIntegrationKey(stack, admin.token, ["documents:write"]);
      const run = await startSync([notes, "--org", slug, "--source", "notes", "--url", server.url, "--json"], key).done;
      expect(run.code, run.stderr).to.equal(0);
      return JSON.parse(run.stdout);
    };
    try {
      await writeFile(join(notes, "only.md"), "# Only note\n\nThe one note of this source.\n");
      await writeFile(join(notes, "blank.md"), " \n\n \n");
      expect((await runNotes()).counts).to.include({ added: 2, removed: 0 });
      await expectMirrored();
      const blank = await waitFor(
        () => db()("documents").where({ org_id: orgId, external_id: "notes:blank.md", status: "FAILED" }).first("ingest_generation"),
        60_000,
        "the blank note to fail",
      );
      const second = await runNotes();
      expect(second.counts).to.include({ added: 0, kept: 1, skipped: 1, retried: 0 });
      expect(second.skipped[0].path).to.equal("blank.md");
      expect(second.skipped[0].reason).to.match(/^could not be indexed: /);
      expect(await db()("documents").where({ org_id: orgId, external_id: "notes:blank.md" }).first("ingest_generation")).to.deep.equal(blank);
      // An emptied folder removes its source's documents, and only those.
      await rm(join(notes, "only.md"));
      await rm(join(notes, "blank.md"));
      expect((await runNotes()).counts).to.include({ removed: 2 });
      expect(await db()("documents").where({ org_id: orgId }).andWhereRaw("starts_with(external_id, 'notes:')").count("* as n").first()).to.deep.equal({
        n: "0",
      });
      await expectMirrored();
    } finally {
      await rm(notes, { recursive: true, force: true });
    }
  });

  it("in scheduled mode runs pass after pass and stops after its pass on SIGTERM", async () => {
    const scheduled = await sync(["--every", "1s", "--json"]);
    await waitFor(() => scheduled.output().split("\n").filter(Boolean).length >= 1, 60_000, "the first pass");
    await write("fresh/scheduled.md", "# Scheduled\n\nAdded while the sync waits.\n");
    await waitFor(
      () =>
        scheduled
          .output()
          .split("\n")
          .filter(Boolean)
          .some((line) => (JSON.parse(line).added as string[]).includes("fresh/scheduled.md")),
      60_000,
      "a later pass to add the new file",
    );
    scheduled.child.kill("SIGTERM");
    const ended = await scheduled.done;
    expect(ended.code, ended.stderr).to.equal(0);
    await expectMirrored();
  });

  it("on SIGTERM in the middle of a scheduled pass, finishes that pass and exits", async () => {
    for (let i = 0; i < 40; i++) await write(`fresh/sigterm-${i}.md`, `# Late ${i}\n\nArrived before the signal, number ${i}.\n`);
    const scheduled = await sync(["--every", "1h", "--concurrency", "1"]);
    await waitFor(() => /^added/m.test(scheduled.output()), 60_000, "the pass to be sending files");
    scheduled.child.kill("SIGTERM");
    const ended = await scheduled.done;
    expect(ended.code, ended.stderr).to.equal(0);
    expect(ended.stdout).to.match(/: 40 added, 0 changed, 0 retried, 0 renamed, \d+ kept, 0 removed, 1 skipped, 0 failed in /);
    await expectMirrored();
  });

  it("refuses a key of another organisation before touching anything (exit 1), and a usage mistake (exit 2)", async () => {
    const { key } = await newIntegrationKey(stack, otherAdmin.token, ["documents:write"]);
    const wrong = await startSync([folder, "--org", slug, "--source", "handbook", "--url", server.url], key).done;
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.include("This key belongs to");
    expect(await db()("documents").where({ org_id: otherOrg }).count("* as n").first()).to.deep.equal({ n: "0" });
    const usage = await startSync([folder, "--url", server.url], key).done;
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.include("--org is required");
  });

  it("indexes everything it pushed", async () => {
    const started = performance.now();
    const statuses = await waitFor(
      async () => {
        const rows: Array<{ status: string; n: string }> = await db()("documents").where({ org_id: orgId }).groupBy("status").select("status").count("* as n");
        return rows.every((row) => ["COMPLETED", "FAILED"].includes(row.status)) ? rows : undefined;
      },
      280_000,
      "every synced document to be indexed",
    );
    figures.indexing_backlog_drained_ms = Math.round(performance.now() - started);
    expect(statuses.map((row) => row.status)).to.deep.equal(["COMPLETED"]);
  });
});
