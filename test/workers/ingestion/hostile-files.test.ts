/**
 * Files built to take a worker down (issue 9): quadratic-pattern bait, zip bombs, deep nesting,
 * CSV expansion. Each is read in bounded time or fails with a code, in a thread with limits, while
 * the worker's event loop keeps serving tutor turns: it is never blocked past the hostile-input
 * bound (test/support/event-loop-block.ts) while the files are uploaded and processed.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, connect, login, upload, waitFor } from "../../harness/client";
import { makeDocx, makePdf, makeTxt } from "../../support/document-fixtures";
import { expectNoLongBlock } from "../../support/event-loop-block";
import { useStack, type Stack } from "../../support/stack";
import { ask, freshEmployee, removeFreshEmployees } from "../tutor/helpers";
import { deeplyNestedHtml, docxBomb, docxWithDuplicate, markdownSpacedHeading, pptxWithDuplicate, pptxWithShapes, wideCsv } from "./hostile-fixtures";
import { testEnv } from "../../support/tunables";

type Doc = { id: string; status: string; error: string | null; error_code: string | null; counts: { chunks: number } };

const unique = () => randomUUID().slice(0, 8);

describe("hostile files", function () {
  this.timeout(120_000);

  describe("through the real upload and worker pipeline", () => {
    let stack: Stack;
    let admin: string;

    before(async function () {
      this.timeout(120_000);
      stack = await useStack();
      ({ token: admin } = await login(stack.baseUrl, "admin@example.com"));
    });
    after(() => removeFreshEmployees(stack));

    const waitForFinal = (id: string, timeoutMs = 60_000) =>
      waitFor(
        async () => {
          const response = await api<Doc>(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token: admin });
          return ["COMPLETED", "FAILED"].includes(response.body.status) ? response.body : undefined;
        },
        timeoutMs,
        `document ${id} to finish`,
      );

    it("fails or completes each hostile upload within its limits while a tutor turn runs normally", async () => {
      const tag = unique();
      const files = [
        { name: `spaces-${tag}.md`, bytes: markdownSpacedHeading(3_000_000, `Body of the spaced heading ${tag}.`), status: "COMPLETED", code: null },
        { name: `shapes-${tag}.pptx`, bytes: pptxWithShapes(100_000, "Hostile deck", `Shapes body ${tag}.`), status: "COMPLETED", code: null },
        { name: `bomb-${tag}.docx`, bytes: docxBomb(), status: "FAILED", code: "EXTRACTION_TOO_LARGE" },
        { name: `liar-${tag}.docx`, bytes: Buffer.concat([docxBomb({ lie: true }), Buffer.from(tag)]), status: "FAILED", code: "EXTRACTION_TOO_LARGE" },
        { name: `wide-${tag}.csv`, bytes: wideCsv(200, 2_000, 4_000), status: "FAILED", code: "EXTRACTION_TOO_LARGE" },
        { name: `nested-${tag}.html`, bytes: deeplyNestedHtml(10_000, 30, `Deep sentence ${tag}.`), status: "COMPLETED", code: null },
      ];
      const socket = await connect(stack.baseUrl, admin);
      const failedEvents: Array<{ documentId: string; status: string; error_code?: string }> = [];
      socket.on("document_status", (event) => event.status === "FAILED" && failedEvents.push(event));
      const learner = await freshEmployee(stack);
      try {
        await expectNoLongBlock("hostile uploads beside a tutor turn", async () => {
          const ids = await Promise.all(
            files.map(async (file) => {
              const response = await upload(stack.baseUrl, admin, file);
              expect(response.status, `${file.name}: ${JSON.stringify(response.body)}`).to.equal(202);
              return response.body.document_id as string;
            }),
          );
          const turnStarted = performance.now();
          const turn = await ask(stack, learner, "How many days do customers have to return an item?");
          const turnMs = performance.now() - turnStarted;
          expect(turn.done, JSON.stringify(turn.errors)).to.exist;
          expect(turn.tokens.length).to.be.greaterThan(0);
          expect(turnMs, `tutor turn took ${Math.round(turnMs)} ms`).to.be.lessThan(15_000);

          for (const [i, id] of ids.entries()) {
            const file = files[i]!;
            const document = await waitForFinal(id);
            expect(document.status, `${file.name}: ${document.error}`).to.equal(file.status);
            expect(document.error_code, file.name).to.equal(file.code);
            if (file.code) expect(document.error, file.name).to.match(/ZIP_MAX_UNCOMPRESSED_BYTES|declares|EXTRACT_MAX_TEXT_CHARS/);
          }
          await waitFor(() => failedEvents.filter((e) => ids.includes(e.documentId)).length === 3, 5_000, "FAILED events");
          expect(failedEvents.filter((e) => ids.includes(e.documentId)).map((e) => e.error_code)).to.deep.equal([
            "EXTRACTION_TOO_LARGE",
            "EXTRACTION_TOO_LARGE",
            "EXTRACTION_TOO_LARGE",
          ]);
          // Extraction failures are final: one attempt each, no retry redoing the same work.
          const jobs = await stack.server.deps.producer.queue("ingest-extract").getJobs(["failed"]);
          for (const job of jobs.filter((j) => ids.includes(j.data.documentId))) expect(job.attemptsMade, job.id).to.equal(1);
        });
      } finally {
        socket.disconnect();
      }
    });

    it("refuses a DOCX/PPTX whose part names collide before inflating it, and keeps ingesting the rest", async () => {
      const tag = unique();
      // The bomb: word/document.xml honest, then a second word/document.xml declaring 1 kB that
      // inflates to 1 GB — what mammoth (JSZip keeps the last of a name) used to read.
      const refused = [
        { name: `duplicate-bomb-${tag}.docx`, bytes: Buffer.concat([docxWithDuplicate({ bomb: true, text: `Bomb ${tag}.` }), Buffer.from(tag)]) },
        { name: `case-${tag}.docx`, bytes: docxWithDuplicate({ duplicateName: "WORD/document.xml", text: `Case ${tag}.` }) },
        { name: `dot-${tag}.docx`, bytes: docxWithDuplicate({ duplicateName: "./word/document.xml", text: `Dot ${tag}.` }) },
        { name: `slides-${tag}.pptx`, bytes: pptxWithDuplicate("ppt/slides/SLIDE1.xml", `Shown ${tag}.`, "Hidden.") },
      ];
      const fine = [
        { name: `fine-${tag}.docx`, bytes: await makeDocx([{ heading: "Parking", body: `Visitors park on level two ${tag}.` }]) },
        { name: `fine-${tag}.txt`, bytes: makeTxt(`Plain text still ingests ${tag}.`) },
      ];
      await expectNoLongBlock("colliding DOCX/PPTX part names", async () => {
        const ids = await Promise.all(
          [...refused, ...fine].map(async (file) => {
            const response = await upload(stack.baseUrl, admin, file);
            expect(response.status, `${file.name}: ${JSON.stringify(response.body)}`).to.equal(202);
            return response.body.document_id as string;
          }),
        );
        for (const [i, file] of refused.entries()) {
          const document = await waitForFinal(ids[i]!);
          expect(document.status, file.name).to.equal("FAILED");
          expect(document.error_code, file.name).to.equal("EXTRACTION_AMBIGUOUS_ARCHIVE");
          // Refused on its names, before any entry was inflated: the 1 GB entry never was.
          expect(document.error, file.name).to.match(/refused before anything in it was unpacked/);
          expect(document.counts.chunks).to.equal(0);
        }
        for (const [i, file] of fine.entries()) {
          const document = await waitForFinal(ids[refused.length + i]!);
          expect(document.status, `${file.name}: ${document.error}`).to.equal("COMPLETED");
          expect(document.counts.chunks, file.name).to.be.greaterThan(0);
        }
        const jobs = await stack.server.deps.producer.queue("ingest-extract").getJobs(["failed"]);
        for (const job of jobs.filter((j) => ids.includes(j.data.documentId))) expect(job.attemptsMade, "refusals are final").to.equal(1);
      });
    });

    it("kills a thread that runs past EXTRACT_TIMEOUT_MS, fails the document EXTRACTION_TIMEOUT, and keeps serving", async function () {
      this.timeout(180_000);
      const inProcess = stack.workers.workers.find((worker) => worker.name === "ingest-extract")!;
      await inProcess.pause();
      const env = testEnv({
        ...process.env,
        ...stack.env,
        WORKER_QUEUES: "ingest-extract:2",
        EXTRACT_TIMEOUT_MS: "400",
        EXTRACT_THREADS: "1",
        LOG_LEVEL: "silent",
      });
      const worker = spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], { env, stdio: "ignore" });
      try {
        const slow = await makePdf(
          Array.from({ length: 400 }, (_, i) => ({ heading: `Page ${i}`, body: `${"Long body text for a slow PDF page. ".repeat(60)} ${unique()}` })),
        );
        await expectNoLongBlock("a PDF read past EXTRACT_TIMEOUT_MS (server side; the worker is another process)", async () => {
          const started = Date.now();
          const response = await upload(stack.baseUrl, admin, { name: `slow-${unique()}.pdf`, bytes: slow });
          expect(response.status).to.equal(202);
          const document = await waitForFinal(response.body.document_id, 90_000);
          expect(document.status).to.equal("FAILED");
          expect(document.error_code).to.equal("EXTRACTION_TIMEOUT");
          expect(document.error).to.match(/longer than 400 ms \(EXTRACT_TIMEOUT_MS\)/);
          const elapsed = Date.now() - started;

          // One thread only: the next file can be read only because the stuck one was terminated.
          const next = await upload(stack.baseUrl, admin, { name: `after-${unique()}.txt`, bytes: makeTxt(`Still serving ${unique()}.`) });
          const after = await waitForFinal(next.body.document_id, 60_000);
          expect(after.status, after.error ?? "").to.equal("COMPLETED");
          expect(after.error_code).to.equal(null);
          const jobs = await stack.server.deps.producer.queue("ingest-extract").getJobs(["failed"]);
          const failed = jobs.find((job) => job.data.documentId === response.body.document_id);
          expect(failed?.attemptsMade, "no retry of a timed-out extraction").to.equal(1);
          expect(elapsed, `${elapsed} ms from upload to FAILED`).to.be.lessThan(60_000);
        });
      } finally {
        worker.kill("SIGTERM");
        inProcess.resume();
      }
    });
  });
});
