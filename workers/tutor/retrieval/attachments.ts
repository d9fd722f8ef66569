/**
 * The conversation's own material: passages of the files the employee attached to this
 * conversation and sent with a question (chat_attachments). Read only for that conversation's
 * owner, never for another session, person or organisation (the query is scoped by all three).
 * The files sent with the question being answered come first, in their own order, since the
 * employee gave them for it ("what does this say?" names nothing a search could match); files
 * of earlier questions join only when a passage is close to the question. They are cited like a
 * document passage, named by the file.
 */
import { sessionAttachmentPassages, sessionHasAttachmentPassages } from "../../../db/queries/chat-attachments";
import type { WorkerDeps } from "../../deps";
import type { TurnContext } from "../turn-context";
import type { RetrievedSource } from "./types";

/** Passages of attached files a turn is given at most (before the company's own sources). */
export const ATTACHMENT_PASSAGES = 4;

export async function attachmentSources(deps: WorkerDeps, turn: TurnContext): Promise<{ sources: Omit<RetrievedSource, "index">[]; withQuestion: boolean }> {
  if (!(await sessionHasAttachmentPassages(deps.db, turn))) return { sources: [], withQuestion: false };
  const [embedding] = await deps.llm.embed([turn.question], "query", turn);
  const passages = await sessionAttachmentPassages(deps.db, turn, embedding ?? null, ATTACHMENT_PASSAGES * 3);
  const floor = deps.config.retrieval.RETRIEVAL_GROUNDING_SIMILARITY;
  const kept = passages.filter((passage) => passage.current || (passage.similarity ?? 0) >= floor).slice(0, ATTACHMENT_PASSAGES);
  return {
    withQuestion: kept.some((passage) => passage.current),
    sources: kept.map((passage) => ({
      document: passage.filename,
      section: passage.metadata.heading ?? null,
      page: passage.metadata.page_start ?? null,
      sourceType: "attachment",
      sourceId: passage.id,
      content: passage.content,
    })),
  };
}
