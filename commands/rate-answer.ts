/**
 * A person rates one of their own answers (rating again replaces). Not audited: a rating is
 * per-message feedback on the product, stored with the answer's rung and sources, not a change to
 * anyone's data or access (docs/architecture.md, "Where a write and its audit event go").
 */
import type { FeedbackRow, Rating } from "../db/queries/chat-feedback";
import { rateAnswer } from "../db/queries/chat-feedback-writes";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function rateOwnAnswer(
  deps: Pick<CommandDeps, "db">,
  owner: { orgId: string; userId: string },
  input: { messageId: string; rating: Rating; comment: string | null },
): Promise<FeedbackRow> {
  const row = await withTransaction(deps, (trx) => rateAnswer(trx, owner, input));
  if (!row) throw Refusal.notFound("Answer");
  return row;
}
