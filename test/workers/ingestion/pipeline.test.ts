/**
 * Document ingestion end to end: real files made by real tools, uploaded over HTTP, indexed
 * by the real BullMQ stages, announced over Socket.IO, and found by the tutor's hybrid search.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { hybridSearch } from "../../../workers/tutor/retrieval/hybrid-search";
import { api, connect, login, upload, waitFor } from "../../harness/client";
import { corruptPdf, makeCsv, makeDocx, makeHtml, makeMarkdown, makePdf, makePptx, makeTxt } from "../../support/document-fixtures";
import { useStack, type Stack } from "../../support/stack";
import { testEnv } from "../../support/tunables";

type Doc = { id: string; status: string; error: string | null; counts: { chunks: number } };

async function waitForStatus(stack: Stack, token: string, id: string, statuses: string[], timeoutMs = 30_000): Promise<Doc> {
  return waitFor(
    async () => {
      const response = await api<Doc>(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token });
      return statuses.includes(response.body.status) ? response.body : undefined;
    },
    timeoutMs,
    `document ${id} to reach ${statuses.join("/")}`,
  );
}

describe("document ingestion", function () {
  this.timeout(90_000);
  let stack: Stack;
  let admin: string;
  let adminId: string;
  let employee: string;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    ({
      token: admin,
      user: { id: adminId },
    } = await login(stack.baseUrl, "admin@example.com"));
    ({ token: employee } = await login(stack.baseUrl, "employee@example.com"));
  });
  afterEach(() => stack.llm.reset());

  const unique = () => randomUUID().slice(0, 8);

  it("indexes every supported format with headings and pages, and the tutor's search finds each", async () => {
    const tag = unique();
    const files = [
      {
        name: `policy-${tag}.pdf`,
        bytes: await makePdf([
          { heading: "Overview", body: `General overview ${tag}.` },
          { heading: "Parking Rules", body: `Visitors park in zone marigold${tag} only.` },
        ]),
        heading: null,
        page: 2,
        phrase: `marigold${tag}`,
      },
      {
        name: `handbook-${tag}.docx`,
        bytes: await makeDocx([{ heading: "Holidays", body: `Staff receive twentytwo${tag} paid days.` }]),
        heading: "Holidays",
        page: null,
        phrase: `twentytwo${tag}`,
      },
      {
        name: `deck-${tag}.pptx`,
        bytes: await makePptx([
          { title: "Welcome", body: "Hello team." },
          { title: "Safety First", body: `Helmets are mandatory in bay quartz${tag}.` },
        ]),
        heading: "Safety First",
        page: 2,
        phrase: `quartz${tag}`,
      },
      { name: `notes-${tag}.txt`, bytes: makeTxt(`The coffee machine code is walnut${tag}.`), heading: null, page: null, phrase: `walnut${tag}` },
      {
        name: `guide-${tag}.md`,
        bytes: makeMarkdown([{ heading: "Badges", body: `Badges are collected at desk saffron${tag}.` }]),
        heading: "Badges",
        page: null,
        phrase: `saffron${tag}`,
      },
      {
        name: `page-${tag}.html`,
        bytes: makeHtml([{ heading: "Lockers", body: `Lockers open with token cobalt${tag}.` }]),
        heading: "Lockers",
        page: null,
        phrase: `cobalt${tag}`,
      },
      {
        name: `stores-${tag}.csv`,
        bytes: makeCsv(["store", "manager"], [["Lisbon", `Rita juniper${tag}`]]),
        heading: null,
        page: null,
        phrase: `juniper${tag}`,
      },
    ];
    const ids = await Promise.all(
      files.map(async (file) => {
        const response = await upload(stack.baseUrl, admin, file);
        expect(response.status, `${file.name}: ${JSON.stringify(response.body)}`).to.equal(202);
        expect(response.body.status).to.equal("PENDING");
        return response.body.document_id as string;
      }),
    );
    for (const [i, id] of ids.entries()) {
      const file = files[i]!;
      const document = await waitForStatus(stack, admin, id, ["COMPLETED", "FAILED"]);
      expect(document.status, `${file.name}: ${document.error}`).to.equal("COMPLETED");
      expect(document.counts.chunks).to.be.greaterThan(0);
      const chunk = await stack.server.deps.db("document_chunks").where({ document_id: id }).andWhere("content", "like", `%${file.phrase}%`).first();
      expect(chunk, `${file.name} chunk with ${file.phrase}`).to.exist;
      if (file.heading) expect(chunk.metadata.heading, file.name).to.include(file.heading);
      if (file.page) expect(chunk.metadata.page_start, file.name).to.equal(file.page);
      expect(chunk.embedding, `${file.name} embedded`).to.not.equal(null);
      const full = await stack.server.deps.db("documents").where({ id }).first("full_text");
      expect(full.full_text).to.include(file.phrase);

      const found = await hybridSearch(stack.workers.deps, { orgId: stack.demo.orgId, userId: adminId, question: `What about ${file.phrase}?` });
      expect(
        found.map((s) => s.sourceId),
        `${file.name} found by search`,
      ).to.include(chunk.id);
    }
  });

  it("refuses a file over the limit (413) and a disguised executable (415), storing nothing", async () => {
    const big = await upload(stack.baseUrl, admin, { name: "huge.txt", bytes: Buffer.alloc(6 * 1024 * 1024, "a") });
    expect(big.status).to.equal(413);
    expect(big.body.error.code).to.equal("FILE_TOO_LARGE");
    expect(big.body.error.message).to.include("5 MB");
    const exe = Buffer.concat([Buffer.from("MZ\x90\x00\x03\x00\x00\x00", "binary"), Buffer.alloc(2048, 1)]);
    const disguised = await upload(stack.baseUrl, admin, { name: "invoice.pdf", bytes: exe, type: "application/pdf" });
    expect(disguised.status).to.equal(415);
    expect(disguised.body.error.code).to.equal("UNSUPPORTED_FILE_TYPE");
    expect(disguised.body.error.allowed).to.include(".pdf");
    const notMultipart = await api(stack.baseUrl, "POST", "/api/v1/documents", { token: admin, body: { file: "x" } });
    expect(notMultipart.status).to.equal(415);
    const stored = await stack.server.deps.db("documents").whereIn("filename", ["huge.txt", "invoice.pdf"]).first("id");
    expect(stored).to.equal(undefined);
  });

  it("marks a corrupt PDF FAILED with a readable reason", async () => {
    const response = await upload(stack.baseUrl, admin, { name: `broken-${unique()}.pdf`, bytes: corruptPdf() });
    expect(response.status).to.equal(202);
    const document = await waitForStatus(stack, admin, response.body.document_id, ["FAILED", "COMPLETED"]);
    expect(document.status).to.equal("FAILED");
    expect(document.error).to.match(/PDF/i);
    expect(document.error).to.not.match(/at \w+ \(|node_modules/);
  });

  it("deduplicates the same bytes within the org and queues nothing the second time", async () => {
    const bytes = makeTxt(`Dedup check ${unique()}: the fire drill is on Fridays.`);
    const first = await upload(stack.baseUrl, admin, { name: "drill.txt", bytes });
    expect(first.status).to.equal(202);
    const second = await upload(stack.baseUrl, admin, { name: "drill-copy.txt", bytes });
    expect(second.status).to.equal(200);
    expect(second.body).to.include({ document_id: first.body.document_id, duplicate: true });
    const rows = await stack.server.deps.db("documents").where({ org_id: stack.demo.orgId, filename: "drill-copy.txt" });
    expect(rows).to.have.length(0);
    const jobs = await stack.server.deps.producer.queue("ingest-extract").getJobs(["completed", "active", "waiting", "delayed", "failed"]);
    expect(jobs.filter((job) => job.data.documentId === first.body.document_id)).to.have.length(1);
  });

  it("announces document_status in order in the uploader's room only", async () => {
    const adminSocket = await connect(stack.baseUrl, admin);
    const employeeSocket = await connect(stack.baseUrl, employee);
    const seen: Array<{ status: string; progress?: { done: number; total: number } }> = [];
    const leaked: unknown[] = [];
    const response = await (async () => {
      adminSocket.on("document_status", (payload) => seen.push(payload));
      employeeSocket.on("document_status", (payload) => leaked.push(payload));
      const long = makeMarkdown(
        Array.from({ length: 12 }, (_, i) => ({ heading: `Section ${i}`, body: `${"Policy text about returns and refunds. ".repeat(40)} ${unique()}` })),
      );
      return upload(stack.baseUrl, admin, { name: `long-${unique()}.md`, bytes: long });
    })();
    const id = response.body.document_id;
    await waitFor(() => seen.some((e) => (e as { documentId?: string }).documentId === id && e.status === "COMPLETED"), 30_000, "COMPLETED event");
    const mine = seen.filter((e) => (e as { documentId?: string }).documentId === id);
    const order = ["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING", "COMPLETED"];
    const ranks = mine.map((e) => order.indexOf(e.status));
    expect(ranks).to.deep.equal(
      [...ranks].sort((a, b) => a - b),
      `statuses in order: ${mine.map((e) => e.status).join(",")}`,
    );
    expect(mine.map((e) => e.status)).to.include.members(["PROCESSING", "CHUNKING", "EMBEDDING", "COMPLETED"]);
    const progress = mine.filter((e) => e.progress).map((e) => e.progress!.done);
    expect(progress).to.deep.equal([...progress].sort((a, b) => a - b));
    expect(leaked).to.have.length(0);
    adminSocket.disconnect();
    employeeSocket.disconnect();
  });

  it("forbids employees (403) and keeps documents in their org", async () => {
    const response = await upload(stack.baseUrl, employee, { name: "mine.txt", bytes: makeTxt("hello") });
    expect(response.status).to.equal(403);
    expect((await api(stack.baseUrl, "GET", "/api/v1/documents", { token: employee })).status).to.equal(403);
    const missing = await api(stack.baseUrl, "GET", `/api/v1/documents/${randomUUID()}`, { token: admin });
    expect(missing.status).to.equal(404);
  });

  it("deletes a document with its chunks, refusing a course's source unless forced", async () => {
    const response = await upload(stack.baseUrl, admin, {
      name: `temp-${unique()}.md`,
      bytes: makeMarkdown([{ heading: "Temp", body: `Temporary ${unique()}` }]),
    });
    const id = response.body.document_id;
    await waitForStatus(stack, admin, id, ["COMPLETED"]);
    expect(
      Number((await stack.server.deps.db("document_chunks").where({ document_id: id }).count<{ count: string }[]>("* as count").first())!.count),
    ).to.be.greaterThan(0);
    const gone = await api(stack.baseUrl, "DELETE", `/api/v1/documents/${id}`, { token: admin });
    expect(gone.status).to.equal(204);
    expect(await stack.server.deps.db("document_chunks").where({ document_id: id }).first()).to.equal(undefined);
    expect((await api(stack.baseUrl, "GET", `/api/v1/documents/${id}`, { token: admin })).status).to.equal(404);

    const courseSource = stack.demo.documentIds.returnsPolicy;
    const refused = await api(stack.baseUrl, "DELETE", `/api/v1/documents/${courseSource}`, { token: admin });
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal("DOCUMENT_IN_USE");
    expect(await stack.server.deps.db("documents").where({ id: courseSource }).first("id")).to.exist;
  });

  it("re-indexes without duplicating chunks", async () => {
    const response = await upload(stack.baseUrl, admin, {
      name: `reindex-${unique()}.md`,
      bytes: makeMarkdown([
        { heading: "A", body: "Alpha ".repeat(300) },
        { heading: "B", body: `Beta ${unique()}` },
      ]),
    });
    const id = response.body.document_id;
    const first = await waitForStatus(stack, admin, id, ["COMPLETED"]);
    const again = await api(stack.baseUrl, "POST", `/api/v1/documents/${id}/reindex`, { token: admin });
    expect(again.status).to.equal(202);
    await waitFor(
      async () => (await stack.server.deps.db("documents").where({ id }).first("status", "ingest_generation")).ingest_generation === 1,
      5_000,
      "generation bump",
    );
    const second = await waitForStatus(stack, admin, id, ["COMPLETED"]);
    expect(second.counts.chunks).to.equal(first.counts.chunks);
    const rows = await stack.server.deps.db("document_chunks").where({ document_id: id }).select("position");
    expect(rows).to.have.length(first.counts.chunks);
    expect(new Set(rows.map((r) => r.position)).size).to.equal(rows.length);
  });

  it("completes once, without duplicate chunks, when the embedding worker is killed mid-way", async function () {
    this.timeout(120_000);
    const inProcess = stack.workers.workers.find((worker) => worker.name === "ingest-embed")!;
    await inProcess.pause();
    const env = testEnv({
      ...process.env,
      ...stack.env,
      WORKER_QUEUES: "ingest-embed:1",
      EMBED_BATCH_SIZE: "2",
      WORKER_LOCK_DURATION_MS: "2000",
      WORKER_STALLED_INTERVAL_MS: "1000",
      LOG_LEVEL: "silent",
    });
    const startWorker = () => spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], { env, stdio: "ignore" });
    try {
      stack.llm.setEmbeddingDelay(400);
      const sections = Array.from({ length: 10 }, (_, i) => ({
        heading: `Part ${i}`,
        body: `${"Warehouse aisle rules and stock rotation. ".repeat(30)} ${unique()}`,
      }));
      const response = await upload(stack.baseUrl, admin, { name: `crash-${unique()}.md`, bytes: makeMarkdown(sections) });
      const id = response.body.document_id;
      const doomed = startWorker();
      await waitFor(
        async () => {
          const row = await stack.server.deps
            .db("document_chunk_drafts")
            .where({ document_id: id })
            .whereNotNull("embedding")
            .count<{ count: string }[]>("* as count")
            .first();
          return Number(row!.count) >= 2;
        },
        60_000,
        "some batches embedded",
      );
      doomed.kill("SIGKILL");
      const total = Number(
        (await stack.server.deps.db("document_chunk_drafts").where({ document_id: id }).count<{ count: string }[]>("* as count").first())!.count,
      );
      stack.llm.setEmbeddingDelay(0);
      const rescuer = startWorker();
      try {
        const document = await waitForStatus(stack, admin, id, ["COMPLETED", "FAILED"], 60_000);
        expect(document.status, document.error ?? "").to.equal("COMPLETED");
        expect(document.counts.chunks).to.equal(total);
        const rows = await stack.server.deps.db("document_chunks").where({ document_id: id }).select("position");
        expect(rows).to.have.length(total);
        expect(new Set(rows.map((r) => r.position)).size).to.equal(total);
      } finally {
        rescuer.kill("SIGTERM");
      }
    } finally {
      stack.llm.setEmbeddingDelay(0);
      inProcess.resume();
    }
  });
});
