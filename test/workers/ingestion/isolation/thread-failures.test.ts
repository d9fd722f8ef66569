/**
 * Extraction threads however the worker was started, and what happens when they fail for a
 * reason that is not the file's: the launcher's preload flags never reach a thread; a thread that
 * cannot start or that crashes fails its task (never leaves it waiting), the job is retried, and
 * the document ends FAILED with INGEST_FAILED and a reason that says the file is fine; a worker
 * whose threads cannot start at all refuses to start.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { parseConfig } from "../../../../lib/config";
import { startWorkers } from "../../../../workers/host";
import {
  closeThreadPool,
  ExtractionThreadError,
  ExtractionThreadsUnavailable,
  extractInThread,
  probeThreadPool,
} from "../../../../workers/ingestion/isolation";
import { threadExecArgv } from "../../../../workers/ingestion/isolation/thread-flags";
import { useThreadEntry } from "../../../../workers/ingestion/isolation/thread-pool";
import { INTERNAL_FAILURE_REASON } from "../../../../workers/ingestion/ingest-run";
import { memoryLogger } from "../../llm/helpers";
import { api, login, upload, waitFor } from "../../../harness/client";
import { expectNoLongBlock } from "../../../support/event-loop-block";
import { stackSuite } from "../../../support/suite";
import { scrape, total } from "../../../server/metrics-helpers";
import { testEnv } from "../../../support/tunables";

const fixture = (name: string) => new URL(`./thread-fixtures/${name}`, import.meta.url);
const settings = parseConfig(testEnv({ ...process.env, EXTRACT_TIMEOUT_MS: "20000" }));

describe("extraction threads", function () {
  this.timeout(60_000);
  afterEach(() => useThreadEntry(undefined));

  it("drop the process's preloads and keep its other flags", () => {
    expect(
      threadExecArgv(["--import", "tsx", "--import=/x/exit-with-parent.ts", "--enable-source-maps", "-r", "a.cjs", "--require=b.cjs", "--no-warnings"]),
    ).to.deep.equal(["--enable-source-maps", "--no-warnings"]);
    expect(threadExecArgv(["--loader", "tsx", "--experimental-loader=x.mjs", "--inspect=0"])).to.deep.equal(["--inspect=0"]);
  });

  it("read a file in a process started like the launcher starts the worker", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        "./launcher/embedded/exit-with-parent.ts",
        "test/workers/ingestion/isolation/thread-fixtures/extract-like-the-launcher.ts",
      ],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (part: string) => (output += part));
    child.stderr!.setEncoding("utf8").on("data", (part: string) => (output += part));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(output, output).to.include("READ Lockers are in room saffron.");
    expect(code).to.equal(0);
  });

  it("that cannot start fail each task with ExtractionThreadError, the next one too, and fail the probe", async () => {
    await useThreadEntry(fixture("cannot-start.mjs"));
    const { log, lines } = memoryLogger();
    for (let attempt = 0; attempt < 3; attempt++) {
      const failure = await expectNoLongBlock("a task on a thread that cannot start", () =>
        extractInThread(Buffer.from("hello"), "txt", settings, log).then(
          () => null,
          (error: unknown) => error,
        ),
      );
      expect(failure, `attempt ${attempt + 1}`).to.be.instanceOf(ExtractionThreadError);
    }
    const refused = await probeThreadPool(settings.ingestion, 10_000, log).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(ExtractionThreadsUnavailable);
    expect((refused as Error).message).to.match(/Extraction threads cannot start \(this thread cannot start;.*refuses to start/);
    // The pool writes to the logger it was given (the worker's), not one of its own.
    const retired = lines.map((line) => JSON.parse(line)).find((line) => line.msg.startsWith("extraction thread failed outside a task"));
    expect(retired, lines.join("")).to.include({ component: "extraction-threads", level: 50 });
  });

  it("that crash mid-task fail it with ExtractionThreadError", async () => {
    await useThreadEntry(fixture("crashes.mjs"));
    const { log } = memoryLogger();
    await probeThreadPool(settings.ingestion, 10_000, log);
    const failure = await expectNoLongBlock("a task whose thread crashes", () =>
      extractInThread(Buffer.from("hello"), "txt", settings, log).catch((error: unknown) => error),
    );
    expect(failure).to.be.instanceOf(ExtractionThreadError);
    expect((failure as Error).message).to.include("exited with code: 7");
    await closeThreadPool();
  });
});

describe("a document whose extraction threads fail", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });
  afterEach(() => useThreadEntry(undefined));

  it("is retried, ends FAILED with INGEST_FAILED saying it is not the file's fault, is counted, and re-indexes once threads work", async () => {
    const { token } = await login(stack.baseUrl, "admin@example.com");
    await useThreadEntry(fixture("cannot-start.mjs"));
    const before = total(await scrape(stack), "skillnet_job_failures_total", { queue: "ingest-extract", code: "EXTRACTION_THREAD_FAILED" });
    const tag = randomUUID().slice(0, 8);
    const posted = await upload(stack.baseUrl, token, { name: `fine-${tag}.txt`, bytes: Buffer.from(`A perfectly good file ${tag}.`), type: "text/plain" });
    expect(posted.status).to.equal(202);
    const id = posted.body.document_id as string;
    const sentAt = performance.now();

    const failed = await expectNoLongBlock("a document whose threads cannot start, through its retries", () =>
      waitFor(
        async () => {
          const { body } = await api(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token });
          return body.status === "FAILED" ? body : undefined;
        },
        60_000,
        "the document to end FAILED",
      ),
    );
    // A figure for notes (default attempts and back-off), never asserted.
    if (process.env.JOURNEY_FIGURES) process.stdout.write(`internal failure to FAILED: ${Math.round(performance.now() - sentAt)} ms\n`);
    expect(failed.error_code).to.equal("INGEST_FAILED");
    expect(failed.error).to.include(INTERNAL_FAILURE_REASON);
    expect(failed.error).to.match(/not a problem with the file.*Try again later/);
    // Three attempts (the queue's default), each counted with the thread's code; the last as final.
    await waitFor(
      async () => {
        const scraped = await scrape(stack);
        const attempts = total(scraped, "skillnet_job_failures_total", { queue: "ingest-extract", code: "EXTRACTION_THREAD_FAILED" }) - before;
        return (
          attempts === 3 && total(scraped, "skillnet_job_failures_total", { queue: "ingest-extract", code: "EXTRACTION_THREAD_FAILED", final: "true" }) >= 1
        );
      },
      10_000,
      "three counted attempts, the last one final",
    );

    await useThreadEntry(undefined);
    expect((await api(stack.baseUrl, "POST", `/api/v1/documents/${id}/reindex`, { token })).status).to.equal(202);
    await waitFor(
      async () => (await api(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token })).body.status === "COMPLETED",
      30_000,
      "the re-indexed document to complete",
    );
  });

  it("makes a worker serving ingestion refuse to start", async () => {
    await useThreadEntry(fixture("cannot-start.mjs"));
    const config = parseConfig(testEnv({ ...process.env, WORKER_QUEUES: "ingest-extract:1" }));
    const refused = await startWorkers(config, { skipEmbeddingCheck: true }).then(
      async (running) => {
        await running.close();
        return null;
      },
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(ExtractionThreadsUnavailable);
  });
});
