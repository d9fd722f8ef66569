/**
 * The files a conversation's history shows under each question, against the database lane: the
 * history page (GET /api/v1/chat/sessions/:id/messages, as its route answers it) lists each
 * question's sent files in the documented shape, none under an answer or a question sent without
 * files, and never a file waiting to be sent; another person of the organisation, a person of
 * another organisation and another conversation of the same person see none of them.
 */
import { expect } from "chai";
import { attachFile } from "../../../commands/attach-file";
import { startTurn } from "../../../commands/start-turn";
import { sentAttachmentsOf } from "../../../db/queries/chat-attachments";
import { Refusal } from "../../../lib/refusal";
import { attachmentJobId } from "../../../queues/job-ids";
import { messagesResponse } from "../../../server/openapi/responses";
import { sessionHistoryPage } from "../../../server/routes/chat/history";
import { readAttachmentHandler } from "../../../workers/attachments/read-attachment.handler";
import type { LlmClient } from "../../../workers/llm/client";
import { commandSuite, freshPerson } from "./helpers";

type Owner = { orgId: string; userId: string };

describe("chat history: the files sent with each question", function () {
  const lane = commandSuite(this);
  this.timeout(60_000);
  const metrics = { turnAccepted: () => undefined };
  const embedder = () =>
    ({
      embed: async (texts: string[]) => texts.map(() => Array.from({ length: lane.config.embedding.EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0))),
    }) as unknown as LlmClient;

  async function attachAndRead(owner: Owner, sessionId: string | undefined, filename: string, body: string) {
    const attachment = await attachFile(lane.deps, owner, { sessionId, filename, format: "txt", bytes: Buffer.from(body, "utf8") });
    const deps = lane.workerDeps({ llm: embedder() });
    const job = (await lane.deps.producer.queue("chat-attachment").getJob(attachmentJobId(attachment.id)))!;
    const data = { orgId: owner.orgId, userId: owner.userId, sessionId: attachment.session_id, attachmentId: attachment.id };
    await readAttachmentHandler.perform({ job, data, deps, log: deps.log });
    return attachment;
  }

  const ask = (owner: Owner, sessionId: string | undefined, attachmentIds: string[], message: string) =>
    startTurn({ ...lane.deps, metrics }, owner, { agentType: "tutor", message, sessionId, courseId: null, lessonId: null, requestContext: {}, attachmentIds });

  const historyOf = async (reader: Owner, sessionId: string, page: { before?: string; limit: number } = { limit: 50 }) =>
    messagesResponse.parse(JSON.parse(JSON.stringify(await sessionHistoryPage(lane.db, { ...reader, role: "employee" }, sessionId, page))));

  const refusalCode = (promise: Promise<unknown>): Promise<string> =>
    promise.then(
      () => "answered",
      (error: unknown) => (error instanceof Refusal ? error.code : String(error)),
    );

  it("lists each question's sent files in the documented shape, oldest attached first; an answer, a question without files and an unsent file show none", async () => {
    const learner = await freshPerson(lane);
    const owner = { orgId: lane.orgId, userId: learner.id };
    const rota = await attachAndRead(owner, undefined, "rota.txt", "Rota\n\nNight shifts are on Tuesdays.");
    const session = rota.session_id;
    const badge = await attachAndRead(owner, session, "badge.txt", "Badges\n\nLost badges are replaced at reception.");
    const first = await ask(owner, session, [rota.id, badge.id], "When are the night shifts?");
    const second = await ask(owner, session, [], "And on weekends?");
    await attachAndRead(owner, session, "waiting.txt", "Not sent yet.");

    const page = await historyOf(owner, session);
    const byId = new Map(page.messages.map((m) => [m.id, m]));
    expect(byId.get(first.message_id)!.attachments).to.deep.equal([
      { id: rota.id, filename: "rota.txt", format: "txt", size_bytes: rota.size_bytes, status: "ready" },
      { id: badge.id, filename: "badge.txt", format: "txt", size_bytes: badge.size_bytes, status: "ready" },
    ]);
    expect(byId.get(second.message_id)!.attachments, "a question sent without files").to.deep.equal([]);
    expect(page.messages.flatMap((m) => m.attachments.map((a) => a.filename))).to.not.include("waiting.txt");

    // A page that holds only the later question carries only its (no) files.
    const newest = await historyOf(owner, session, { limit: 1 });
    expect(newest.messages.map((m) => [m.id, m.attachments.length])).to.deep.equal([[second.message_id, 0]]);
    const earlier = await historyOf(owner, session, { before: newest.next_before!, limit: 1 });
    expect(earlier.messages.map((m) => m.attachments.map((a) => a.filename))).to.deep.equal([["rota.txt", "badge.txt"]]);
  });

  it("shows them to the conversation's owner only: another person, another organisation and another conversation see none", async () => {
    const learner = await freshPerson(lane);
    const owner = { orgId: lane.orgId, userId: learner.id };
    const file = await attachAndRead(owner, undefined, "payslip.txt", "Payslip\n\nNet pay 2,140.");
    const question = await ask(owner, file.session_id, [file.id], "What is my net pay?");

    const colleague = { orgId: lane.orgId, userId: (await freshPerson(lane)).id };
    const orgB = await lane.build.buildOrg({ name: "Attachment history B" });
    const outsider = { orgId: orgB.id, userId: (await lane.build.buildPerson(orgB.id, { role: "employee" })).id };
    for (const [who, stranger] of [
      ["a colleague", colleague],
      ["another organisation's person", outsider],
    ] as const) {
      expect(await refusalCode(historyOf(stranger, file.session_id)), who).to.equal("NOT_FOUND");
      expect(await sentAttachmentsOf(lane.db, stranger, file.session_id, [question.message_id]), who).to.deep.equal([]);
      // Their own conversation, naming the owner's question, lists nothing of it.
      const own = await ask(stranger, undefined, [], "hello");
      expect(await sentAttachmentsOf(lane.db, stranger, own.session_id, [question.message_id]), `${who}, own conversation`).to.deep.equal([]);
      expect(
        (await historyOf(stranger, own.session_id)).messages.flatMap((m) => m.attachments),
        `${who}, own history`,
      ).to.deep.equal([]);
    }

    const otherConversation = await ask(owner, undefined, [], "Something else");
    expect(await sentAttachmentsOf(lane.db, owner, otherConversation.session_id, [question.message_id]), "another conversation").to.deep.equal([]);
    expect((await historyOf(owner, otherConversation.session_id)).messages.flatMap((m) => m.attachments)).to.deep.equal([]);
    expect(
      (await historyOf(owner, file.session_id)).messages.flatMap((m) => m.attachments.map((a) => a.id)),
      "the owner's own",
    ).to.deep.equal([file.id]);
  });
});
