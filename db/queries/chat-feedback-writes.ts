/**
 * A person's rating of one of their answers, inside the transaction of commands/rate-answer.ts.
 * Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import { FEEDBACK_COLUMNS, type FeedbackRow, findOwnAnswer, type Rating } from "./chat-feedback";

/** Stores (or replaces) the rating; undefined when the message is not the caller's own answer. */
export async function rateAnswer(
  db: Knex,
  owner: { orgId: string; userId: string },
  input: { messageId: string; rating: Rating; comment: string | null },
): Promise<FeedbackRow | undefined> {
  const answer = await findOwnAnswer(db, owner, input.messageId);
  if (!answer) return undefined;
  const rung = answer.metadata.rung ?? null;
  const sources = answer.metadata.sources ?? [];
  const [row] = await db("chat_feedback")
    .insert({
      org_id: owner.orgId,
      message_id: input.messageId,
      user_id: owner.userId,
      rating: input.rating,
      comment: input.comment,
      rung,
      sources: JSON.stringify(sources),
    })
    .onConflict("message_id")
    .merge({ rating: input.rating, comment: input.comment, updated_at: db.fn.now() })
    .returning([...FEEDBACK_COLUMNS]);
  return row as FeedbackRow;
}
