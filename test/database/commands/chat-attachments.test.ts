/**
 * Files attached to tutor conversations, against the database lane: the attach command (limits
 * per conversation, a new conversation when there is none, the reading queued, never another's
 * conversation), the reading itself (the job handler's perform and final-failure hook, with the
 * extraction thread and a fake embedder), the question that carries them (per-message rules,
 * ATTACHMENT_FAILED / ATTACHMENT_PROCESSING, never another's attachment id), the tutor's read of
 * them (that conversation only), and the person's export and erasure.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { attachFile } from "../../../commands/attach-file";
import { deleteChatSession } from "../../../commands/delete-chat-session";
import { removeAttachment } from "../../../commands/remove-attachment";
import { requestPersonErasure } from "../../../commands/person-data";
import { startTurn } from "../../../commands/start-turn";
import { listSessionAttachments } from "../../../db/queries/chat-attachments";
import { collectPersonData, readExportedAttachment } from "../../../db/queries/person-data";
import { ATTACHMENTS_PER_CONVERSATION, ATTACHMENTS_PER_MESSAGE } from "../../../lib/chat-attachment-limits";
import { Refusal } from "../../../lib/refusal";
import { attachmentJobId, personEraseJobId } from "../../../queues/job-ids";
import { readAttachmentHandler } from "../../../workers/attachments/read-attachment.handler";
import type { LlmClient } from "../../../workers/llm/client";
import { buildExportArchive } from "../../../workers/person-data/export-archive";
import { personDataHandler } from "../../../workers/person-data/person-data.handler";
import { attachmentSources } from "../../../workers/tutor/retrieval/attachments";
import type { TurnContext } from "../../../workers/tutor/turn-context";
import { unzip } from "../../support/zip-entries";
import { commandSuite, freshPerson } from "./helpers";

const refusal = (promise: Promise<unknown>): Promise<Refusal> =>
  promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: unknown) => {
      expect(error, String(error)).to.be.instanceOf(Refusal);
      return error as Refusal;
    },
  );

const text = (body: string) => Buffer.from(body, "utf8");

describe("commands: chat attachments", function () {
  const lane = commandSuite(this);
  this.timeout(60_000);
  const metrics = { turnAccepted: () => undefined };
  /** Embeds every text as the same unit vector: the passages of the question's own files are what matter here. */
  const llm = (dimensions: number) =>
    ({ embed: async (texts: string[]) => texts.map(() => Array.from({ length: dimensions }, (_, i) => (i === 0 ? 1 : 0))) }) as unknown as LlmClient;
  const workerDeps = () => lane.workerDeps({ llm: llm(lane.config.embedding.EMBEDDING_DIMENSIONS) });

  async function read(owner: { orgId: string; userId: string }, attachment: { id: string; session_id: string }): Promise<void> {
    const data = { orgId: owner.orgId, userId: owner.userId, sessionId: attachment.session_id, attachmentId: attachment.id };
    const deps = workerDeps();
    const job = (await lane.deps.producer.queue("chat-attachment").getJob(attachmentJobId(attachment.id)))!;
    try {
      await readAttachmentHandler.perform({ job, data, deps, log: deps.log });
    } catch (error) {
      await readAttachmentHandler.onFailed!({ job, data, deps, log: deps.log }, error, { final: true });
    }
  }

  /** A new employee of the lane's organisation, as attachments and turns name their owner. */
  const freshOwner = async () => ({ orgId: lane.orgId, userId: (await freshPerson(lane)).id });
  /** A text file `owner` attaches, to `sessionId` or to a new conversation. */
  const attachText = (owner: { orgId: string; userId: string }, filename: string, body: string, sessionId?: string) =>
    attachFile(lane.deps, owner, { sessionId, filename, format: "txt", bytes: text(body) });

  const ask = (owner: { orgId: string; userId: string }, sessionId: string | undefined, attachmentIds: string[], message = "What does my file say?") =>
    startTurn({ ...lane.deps, metrics }, owner, { agentType: "tutor", message, sessionId, courseId: null, lessonId: null, requestContext: {}, attachmentIds });

  const turnOf = (owner: { orgId: string; userId: string }, sessionId: string, turnId: string, question: string): TurnContext =>
    ({ ...owner, sessionId, turnId, question, language: "en" }) as TurnContext;

  it("attaches to a new conversation, queues the reading, and reads it: ready with passages the owner's turn is given first", async () => {
    const owner = await freshOwner();
    const attachment = await attachText(
      owner,
      "locker-rules.txt",
      "Locker rules\n\nLockers on floor two are emptied every Friday at six. Ask reception for a padlock.",
    );
    expect(attachment).to.include({ status: "processing", filename: "locker-rules.txt", message_id: null, size_bytes: 96 });
    expect(await lane.deps.producer.queue("chat-attachment").getJob(attachmentJobId(attachment.id)), "the reading is queued").to.not.equal(undefined);

    await read(owner, attachment);
    const [stored] = await listSessionAttachments(lane.db, owner, attachment.session_id);
    expect(stored).to.include({ status: "ready", error_code: null });
    expect(stored!.chunk_count).to.be.greaterThan(0);

    // Not read before it is sent with a question; then for that conversation only.
    const question = "When are the lockers emptied?";
    expect((await attachmentSources(workerDeps(), turnOf(owner, attachment.session_id, randomUUID(), question))).sources).to.deep.equal([]);
    const started = await ask(owner, attachment.session_id, [attachment.id], question);
    expect((await listSessionAttachments(lane.db, owner, attachment.session_id))[0]!.message_id).to.equal(started.message_id);
    const given = await attachmentSources(workerDeps(), turnOf(owner, attachment.session_id, started.turn_id, question));
    expect(given.withQuestion).to.equal(true);
    expect(given.sources[0]).to.include({ document: "locker-rules.txt", sourceType: "attachment" });
    expect(given.sources[0]!.content).to.include("emptied every Friday at six");

    const otherSession = await ask(owner, undefined, [], "Another conversation");
    expect(
      (await attachmentSources(workerDeps(), turnOf(owner, otherSession.session_id, otherSession.turn_id, question))).sources,
      "another conversation of the same person",
    ).to.deep.equal([]);
    const colleague = await freshPerson(lane);
    expect(
      (await attachmentSources(workerDeps(), turnOf({ orgId: lane.orgId, userId: colleague.id }, attachment.session_id, started.turn_id, question))).sources,
      "a colleague's turn naming the session",
    ).to.deep.equal([]);
    expect((await refusal(ask(owner, attachment.session_id, [attachment.id]))).code, "sent once").to.equal("ATTACHMENT_ALREADY_SENT");
  });

  it("sends a file with one of two questions sent at once: the other is refused 409 ATTACHMENT_ALREADY_SENT and stores nothing", async () => {
    const owner = await freshOwner();
    const attachment = await attachText(owner, "rota.txt", "Rota\n\nNights: Tuesday.");
    await read(owner, attachment);
    const questions = () => lane.db("chat_messages").where({ session_id: attachment.session_id, role: "user" }).pluck("id");

    const outcomes = await Promise.allSettled([
      ask(owner, attachment.session_id, [attachment.id], "First"),
      ask(owner, attachment.session_id, [attachment.id], "Second"),
    ]);
    const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const lost = outcomes.filter((outcome) => outcome.status === "rejected");
    expect([won.length, lost.length]).to.deep.equal([1, 1]);
    expect((lost[0]!.reason as Refusal).code).to.equal("ATTACHMENT_ALREADY_SENT");
    expect((lost[0]!.reason as Refusal).kind, "409").to.equal("conflict");
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof ask>>>).value;
    expect(await questions(), "the refused question is not stored").to.deep.equal([winner.message_id]);
    expect((await listSessionAttachments(lane.db, owner, attachment.session_id))[0]!.message_id).to.equal(winner.message_id);
  });

  it("fails an unreadable file ATTACHMENT_FAILED with the reading's code; a question carrying it, or one still being read, is refused before anything is stored", async () => {
    const owner = await freshOwner();
    const broken = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(4096, 0xff)]);
    const bad = await attachFile(lane.deps, owner, { sessionId: undefined, filename: "minutes.doc", format: "doc", bytes: broken });
    const started = performance.now();
    await read(owner, bad);
    expect(performance.now() - started, "a broken OLE2 file ends at once").to.be.below(10_000);
    const [failed] = await listSessionAttachments(lane.db, owner, bad.session_id);
    expect(failed).to.include({ status: "failed", error_code: "EXTRACTION_FAILED" });
    expect(failed!.error).to.include("not a Word 97–2003 file");

    const pending = await attachText(owner, "later.txt", "Later.", bad.session_id);
    const messages = async () => Number((await lane.db("chat_messages").where({ session_id: bad.session_id }).count("* as n").first())!.n);
    const failedRefusal = await refusal(ask(owner, bad.session_id, [bad.id]));
    expect(failedRefusal).to.include({ kind: "conflict", code: "ATTACHMENT_FAILED" });
    expect(failedRefusal.details).to.include({ attachment_id: bad.id, reason_code: "EXTRACTION_FAILED" });
    expect((await refusal(ask(owner, bad.session_id, [pending.id]))).code).to.equal("ATTACHMENT_PROCESSING");
    expect(await messages(), "no question stored").to.equal(0);
  });

  it("holds a conversation to ATTACHMENTS_PER_CONVERSATION files and a message to ATTACHMENTS_PER_MESSAGE", async () => {
    const owner = await freshOwner();
    const first = await attachText(owner, "1.txt", "one");
    const ids = [first.id];
    for (let n = 2; n <= ATTACHMENTS_PER_CONVERSATION; n++) {
      ids.push((await attachText(owner, `${n}.txt`, `file ${n}`, first.session_id)).id);
    }
    const over = await refusal(attachText(owner, "more.txt", "more", first.session_id));
    expect(over).to.include({ kind: "conflict", code: "ATTACHMENT_LIMIT" });
    expect(over.details).to.include({ limit_files: ATTACHMENTS_PER_CONVERSATION });
    expect((await refusal(ask(owner, first.session_id, ids.slice(0, ATTACHMENTS_PER_MESSAGE + 1)))).code).to.equal("ATTACHMENT_LIMIT");
  });

  it("never reaches another person's or organisation's conversation or attachment (404, nothing stored)", async () => {
    const owner = await freshOwner();
    const attachment = await attachText(owner, "mine.txt", "mine");
    await read(owner, attachment);
    const orgB = await lane.build.buildOrg({ name: "Attachments B" });
    const outsider = await lane.build.buildPerson(orgB.id, { role: "employee" });
    const colleague = await freshPerson(lane);
    for (const stranger of [
      { orgId: orgB.id, userId: outsider.id },
      { orgId: lane.orgId, userId: colleague.id },
    ]) {
      expect((await refusal(attachText(stranger, "x.txt", "x", attachment.session_id))).code).to.equal("NOT_FOUND");
      const ownSession = await ask(stranger, undefined, [], "hello");
      expect((await refusal(ask(stranger, ownSession.session_id, [attachment.id]))).code, "another's id in one's own conversation").to.equal("NOT_FOUND");
      expect((await refusal(ask(stranger, attachment.session_id, [attachment.id]))).code, "another's conversation").to.equal("NOT_FOUND");
    }
    expect((await listSessionAttachments(lane.db, owner, attachment.session_id)).map((a) => a.message_id)).to.deep.equal([null]);
  });

  it("removes an unsent file with its passages; a sent one stays (409 ATTACHMENT_ALREADY_SENT), another's is not found (404), in this organisation or another", async () => {
    const owner = await freshOwner();
    const kept = await attachText(owner, "kept.txt", "Kept\n\nSent along.");
    const dropped = await attachText(owner, "dropped.txt", "Dropped\n\nNever read.", kept.session_id);
    await read(owner, kept);
    await read(owner, dropped);
    const chunksOf = async (id: string) => Number((await lane.db("chat_attachment_chunks").where({ attachment_id: id }).count("* as n"))[0]!.n);
    expect(await chunksOf(dropped.id)).to.be.greaterThan(0);
    await ask(owner, kept.session_id, [kept.id]);

    const orgB = await lane.build.buildOrg({ name: "Attachments removal B" });
    const outsider = await lane.build.buildPerson(orgB.id, { role: "employee" });
    const colleague = await freshPerson(lane);
    for (const stranger of [
      { orgId: orgB.id, userId: outsider.id },
      { orgId: lane.orgId, userId: colleague.id },
    ]) {
      expect((await refusal(removeAttachment(lane.deps, stranger, dropped.id))).code).to.equal("NOT_FOUND");
    }
    const sent = await refusal(removeAttachment(lane.deps, owner, kept.id));
    expect(sent).to.include({ kind: "conflict", code: "ATTACHMENT_ALREADY_SENT" });
    expect((await listSessionAttachments(lane.db, owner, kept.session_id)).map((a) => a.filename)).to.deep.equal(["kept.txt", "dropped.txt"]);

    await removeAttachment(lane.deps, owner, dropped.id);
    expect((await listSessionAttachments(lane.db, owner, kept.session_id)).map((a) => a.filename)).to.deep.equal(["kept.txt"]);
    expect(await chunksOf(dropped.id), "its passages go with it").to.equal(0);
    expect((await refusal(removeAttachment(lane.deps, owner, dropped.id))).code, "removed once").to.equal("NOT_FOUND");
    expect((await refusal(ask(owner, kept.session_id, [dropped.id]))).code, "a removed file cannot be sent").to.equal("NOT_FOUND");
  });

  it("is in the person's export (the file beside data.json) and goes with the conversation and with the person", async () => {
    const learner = await freshPerson(lane);
    const owner = { orgId: lane.orgId, userId: learner.id };
    const bytes = text("Bring your own mug to the kitchen.");
    const kept = await attachFile(lane.deps, owner, { sessionId: undefined, filename: "kitchen.txt", format: "txt", bytes });
    await read(owner, kept);
    await ask(owner, kept.session_id, [kept.id], "What do I bring?");

    const later = text("Fridge is cleared on Fridays.");
    await attachFile(lane.deps, owner, { sessionId: kept.session_id, filename: "fridge.txt", format: "txt", bytes: later });

    const data = (await collectPersonData(lane.db, lane.orgId, learner.id))!;
    const session = data.sessions.find((s) => s.id === kept.session_id)!;
    expect(session.attachments!.map((a) => a.filename)).to.deep.equal(["kitchen.txt", "fridge.txt"]);
    expect(session.attachments![0], "no file's bytes are read with the data").to.not.have.property("content");
    // Each file is read only when the zip reaches it: one at a time, never two in memory at once.
    let reading = 0;
    let mostAtOnce = 0;
    const reads: string[] = [];
    const archive = await buildExportArchive(data, new Date(), async (id) => {
      reading += 1;
      mostAtOnce = Math.max(mostAtOnce, reading);
      reads.push(id);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const content = await readExportedAttachment(lane.db, lane.orgId, learner.id, id);
      reading -= 1;
      return content;
    });
    expect(reads).to.deep.equal(session.attachments!.map((a) => a.id));
    expect(mostAtOnce).to.equal(1);
    const entries = unzip(archive.zip);
    const [path, second] = [...entries.keys()].filter((name) => name.startsWith("attachments/"));
    expect(path).to.match(/^attachments\/001-[^/]+\/01-kitchen\.txt$/);
    expect(entries.get(path!)).to.equal(bytes.toString("utf8"));
    expect(entries.get(second!)).to.equal(later.toString("utf8"));
    const json = JSON.parse(entries.get("data.json")!);
    expect(json.sessions.find((s: { id: string }) => s.id === kept.session_id).attachments[0])
      .to.include({ filename: "kitchen.txt", file: path })
      .and.not.have.property("content");
    expect(archive.counts.attachments).to.equal(2);

    const count = async (table: string, where: Record<string, string>) => Number((await lane.db(table).where(where).count("* as n").first())!.n);
    await deleteChatSession(lane.deps, owner, kept.session_id);
    expect(await count("chat_attachments", { session_id: kept.session_id })).to.equal(0);
    expect(await count("chat_attachment_chunks", { session_id: kept.session_id })).to.equal(0);

    const another = await attachFile(lane.deps, owner, { sessionId: undefined, filename: "again.txt", format: "txt", bytes });
    await read(owner, another);
    const admin = await freshPerson(lane, "admin");
    const email = (await lane.db("users").where({ id: learner.id }).first("email")).email as string;
    const erasure = await requestPersonErasure(lane.deps, {
      orgId: lane.orgId,
      personId: learner.id,
      adminId: admin.id,
      confirm: email,
      keepLearningRecords: false,
    });
    const job = (await lane.deps.producer.queue("person-data").getJob(personEraseJobId(erasure.id, erasure.runs)))!;
    const deps = workerDeps();
    await personDataHandler.perform({ job, data: job.data, deps, log: deps.log });
    expect(await count("chat_attachments", { user_id: learner.id })).to.equal(0);
    expect(await count("chat_attachment_chunks", { session_id: another.session_id })).to.equal(0);
  });
});
