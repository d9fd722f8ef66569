/**
 * Files attached to tutor conversations on the real stack, with two organisations. The upload
 * route's guards (type by content and name, size, multipart); the reading's end on the owner's
 * socket (`attachment_status` failed, code ATTACHMENT_FAILED) and in the attachment's state; no
 * way for organisation A's employee to reach organisation B's conversation or attachment; and B's
 * hostile attachments (broken Word and Excel files, a spreadsheet named .doc, a GIF pixel bomb,
 * a TIFF of too many pages) read while A's employee asks the tutor and A's admin uploads a document: A's first
 * token comes as fast as usual, the answer streams to its end with no restart, A's document is
 * indexed, and the event loop is never held past the hostile-input bound.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { api, connect, join, recordEvents, upload, waitFor, type ReceivedEvent } from "../../harness/client";
import { makeTxt } from "../../support/document-fixtures";
import { expectNoLongBlock } from "../../support/event-loop-block";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { askTutor, eventsOfTurn, expectEndedOnce, finalText } from "../../reliability/helpers";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser, type Person } from "../admin/helpers";
import { scriptedResponder } from "../tutor/helpers";

const ANSWER = Array.from({ length: 20 }, (_, i) => `Step ${i + 1} of the visitor procedure is done in order.`).join(" ");

const brokenDoc = () => Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(4096, 0xff), Buffer.from(randomUUID())]);

function gifBomb(): Buffer {
  const gif = Buffer.alloc(64);
  gif.write("GIF89a", 0, "latin1");
  gif.writeUInt16LE(65_535, 6);
  gif.writeUInt16LE(65_535, 8);
  return gif;
}

/** A TIFF header declaring `pages` small pages (no pixels): more than OCR reads in one file. */
function tiffPages(pages: number): Buffer {
  const size = 2 + 2 * 12 + 4;
  const bytes = Buffer.alloc(8 + pages * size);
  bytes.write("II", 0, "latin1");
  bytes.writeUInt16LE(42, 2);
  bytes.writeUInt32LE(8, 4);
  for (let page = 0; page < pages; page++) {
    const at = 8 + page * size;
    bytes.writeUInt16LE(2, at);
    for (const [i, tag] of [256, 257].entries()) {
      bytes.writeUInt16LE(tag, at + 2 + i * 12);
      bytes.writeUInt16LE(4, at + 4 + i * 12);
      bytes.writeUInt32LE(1, at + 6 + i * 12);
      bytes.writeUInt32LE(100, at + 10 + i * 12);
    }
    bytes.writeUInt32LE(page === pages - 1 ? 0 : at + size, at + 2 + 2 * 12);
  }
  return bytes;
}

async function attach(baseUrl: string, token: string, file: { name: string; bytes: Buffer }, sessionId?: string) {
  const form = new FormData();
  if (sessionId) form.append("session_id", sessionId);
  form.append("file", new Blob([new Uint8Array(file.bytes)]), file.name);
  const response = await fetch(`${baseUrl}/api/v1/chat/attachments`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

const statusOf = (events: ReceivedEvent[], attachmentId: string) =>
  events.find((e) => (e.event as string) === "attachment_status" && e.payload.attachmentId === attachmentId)?.payload;

describe("chat attachments across organisations", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  let orgB: string;
  let learnerA: Person;
  let adminA: Person;
  let learnerB: Person;

  before(async () => {
    orgB = await freshOrganisation(stack, "Attachments B");
    learnerB = await freshUser(stack, { orgId: orgB });
    learnerA = await freshUser(stack);
    adminA = await freshUser(stack, { role: "admin" });
  });

  after(async () => {
    stack.llm.reset();
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgB]);
  });

  it("guards the upload like a document's, says ATTACHMENT_FAILED on the owner's socket, and keeps each conversation its owner's", async () => {
    const exe = await attach(stack.baseUrl, learnerB.token, { name: "notes.txt", bytes: Buffer.concat([Buffer.from("MZ"), Buffer.alloc(200, 0)]) });
    expect(exe.status).to.equal(415);
    expect(exe.body.error.code).to.equal("UNSUPPORTED_FILE_TYPE");
    const big = await attach(stack.baseUrl, learnerB.token, { name: "big.txt", bytes: Buffer.alloc(5 * 1024 * 1024 + 1, 0x61) });
    expect([big.status, big.body.error.code]).to.deep.equal([413, "FILE_TOO_LARGE"]);
    const json = await api(stack.baseUrl, "POST", "/api/v1/chat/attachments", { token: learnerB.token, body: { file: "x" } });
    expect([json.status, json.body.error.code]).to.deep.equal([415, "UNSUPPORTED_MEDIA_TYPE"]);

    const bad = await attach(stack.baseUrl, learnerB.token, { name: "minutes.doc", bytes: brokenDoc() });
    expect(bad.status).to.equal(202);
    expect(bad.body).to.include({ status: "processing", filename: "minutes.doc", format: "doc" });
    const event = await waitFor(async () => statusOf(learnerB.events, bad.body.id), 30_000, "B's attachment_status");
    expect(event).to.include({ sessionId: bad.body.session_id, status: "failed", code: "ATTACHMENT_FAILED", reason_code: "EXTRACTION_FAILED" });
    expect(statusOf(learnerA.events, bad.body.id), "A's sockets hear nothing of it").to.equal(undefined);
    const listed = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${bad.body.session_id}/attachments`, { token: learnerB.token });
    expect(listed.body.attachments[0]).to.include({ id: bad.body.id, status: "failed", error_code: "EXTRACTION_FAILED" });
    const refused = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: learnerB.token,
      body: { message: "What do the minutes say?", session_id: bad.body.session_id, attachment_ids: [bad.body.id] },
    });
    expect([refused.status, refused.body.error.code]).to.deep.equal([409, "ATTACHMENT_FAILED"]);

    const good = await attach(stack.baseUrl, learnerB.token, { name: "b-only.txt", bytes: makeTxt(`Only B reads this ${randomUUID()}.`) }, bad.body.session_id);
    await waitFor(async () => statusOf(learnerB.events, good.body.id)?.status === "ready", 30_000, "B's text attachment ready");
    // A, in another organisation: B's conversation and attachment are not found, whatever A names.
    expect((await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${bad.body.session_id}/attachments`, { token: learnerA.token })).status).to.equal(404);
    const intoB = await attach(stack.baseUrl, learnerA.token, { name: "a.txt", bytes: makeTxt("A's note") }, bad.body.session_id);
    expect([intoB.status, intoB.body.error.code]).to.deep.equal([404, "NOT_FOUND"]);
    const { sessionId: sessionOfA } = await askTutor(stack.baseUrl, learnerA.token, "hello");
    const borrowed = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: learnerA.token,
      body: { message: "What does this say?", session_id: sessionOfA, attachment_ids: [good.body.id] },
    });
    expect([borrowed.status, borrowed.body.error.code]).to.deep.equal([404, "NOT_FOUND"]);
  });

  it("B's hostile attachments never delay A's first token, stall A's answer or A's document, nor block the event loop", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
    stack.llm.setTokenDelay(5);
    const socket = await connect(stack.baseUrl, learnerA.token);
    const received = recordEvents(socket);
    try {
      // A's baseline: the same question with nothing else running.
      const baseline = await firstTokenMs(stack.baseUrl, received, socket, learnerA.token);
      // The formats new to attachments and this round: legacy Office files and the new image types.
      const hostile = [
        { name: "broken.doc", bytes: brokenDoc(), code: "EXTRACTION_FAILED" },
        { name: "broken.xls", bytes: brokenDoc(), code: "EXTRACTION_FAILED" },
        { name: "not-word.doc", bytes: readFileSync(new URL("../../fixtures/documents/quick-fox.xls", import.meta.url)), code: "EXTRACTION_FAILED" },
        { name: "huge.gif", bytes: gifBomb(), code: "EXTRACTION_TOO_LARGE" },
        { name: "long.tif", bytes: tiffPages(60), code: "EXTRACTION_TOO_LARGE" },
      ];
      const { during, ids, document } = await expectNoLongBlock("B's hostile attachments", async () => {
        const ids: string[] = [];
        for (const file of hostile) {
          const posted = await attach(stack.baseUrl, learnerB.token, file);
          expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
          ids.push(posted.body.id);
        }
        const tag = randomUUID().slice(0, 8);
        const uploaded = await upload(stack.baseUrl, adminA.token, { name: `visitors-${tag}.txt`, bytes: makeTxt(`Visitors sign in at reception ${tag}.`) });
        expect(uploaded.status).to.equal(202);
        const during = await firstTokenMs(stack.baseUrl, received, socket, learnerA.token);
        const document = await waitFor(
          async () => {
            const row = (await api(stack.baseUrl, "GET", `/api/v1/documents/${uploaded.body.document_id}`, { token: adminA.token })).body;
            return ["COMPLETED", "FAILED"].includes(row.status) ? row : undefined;
          },
          60_000,
          "A's document",
        );
        await waitFor(async () => ids.every((id) => statusOf(learnerB.events, id)), 60_000, "B's attachments to end");
        return { during, ids, document };
      });
      expect(document.status, "A's document is indexed").to.equal("COMPLETED");
      expect(during, `A's first token: ${during} ms during, ${baseline} ms alone`).to.be.below(Math.max(2_000, baseline * 4));
      for (const [i, id] of ids.entries())
        expect(statusOf(learnerB.events, id), hostile[i]!.name).to.include({ status: "failed", reason_code: hostile[i]!.code });
    } finally {
      socket.disconnect();
      stack.llm.reset();
    }
  });
});

/** Asks A's question and waits for the turn's end: ms from the ask to its first token; the answer streams whole, once, without a restart. */
async function firstTokenMs(baseUrl: string, received: ReceivedEvent[], socket: Awaited<ReturnType<typeof connect>>, token: string): Promise<number> {
  const asked = performance.now();
  const { sessionId, turnId } = await askTutor(baseUrl, token, "How do visitors sign in?");
  expect(await join(socket, { sessionId })).to.include({ ok: true });
  const first = await waitFor(
    async () => (eventsOfTurn(received, turnId).some((e) => e.event === "token") ? performance.now() : undefined),
    30_000,
    "first token",
  );
  const { ofTurn } = await expectEndedOnce(received, turnId);
  const events = eventsOfTurn(ofTurn, turnId);
  expect(events.filter((e) => e.event === "stage" && e.payload.status === "restart")).to.have.length(0);
  expect(finalText(events)).to.include("Step 20 of the visitor procedure");
  return Math.round(first - asked);
}
