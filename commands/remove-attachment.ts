/**
 * An employee removes a file from the message they are writing: it is deleted with its passages,
 * not only hidden, so the tutor never reads it and it stops counting toward the conversation's
 * limits. Only the sender's own, unsent file: one already sent stays with its question
 * (409 ATTACHMENT_ALREADY_SENT); another person's or organisation's is not found. Records no audit
 * event, like the upload it undoes (commands/attach-file.ts): it is the employee's own draft.
 */
import { removeUnsentAttachment } from "../db/queries/chat-attachment-writes";
import type { Owner } from "../db/queries/chat-sessions";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function removeAttachment(deps: Pick<CommandDeps, "db">, owner: Owner, attachmentId: string): Promise<void> {
  const outcome = await withTransaction(deps, (trx) => removeUnsentAttachment(trx, owner, attachmentId));
  if (outcome === "missing") throw Refusal.notFound("Attachment");
  if (outcome === "sent") {
    throw new Refusal("conflict", "ATTACHMENT_ALREADY_SENT", "This file was already sent with a message; it stays with it", { attachment_id: attachmentId });
  }
}
