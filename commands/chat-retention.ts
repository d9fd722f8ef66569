/**
 * An admin sets (or with null, clears) how long the organisation keeps its chats, with its
 * `retention.updated` audit event, in one transaction; the sweep (workers/maintenance) enforces it.
 */
import { recordAudit } from "../db/queries/audit-log";
import { retentionOf, type RetentionRow } from "../db/queries/chat-retention";
import { upsertChatRetention } from "../db/queries/chat-retention-writes";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export async function setChatRetention(deps: Pick<CommandDeps, "db">, input: { orgId: string; days: number | null; actorId: string }): Promise<RetentionRow> {
  return withTransaction(deps, async (trx) => {
    const before = await retentionOf(trx, input.orgId);
    const row = await upsertChatRetention(trx, input);
    await recordAudit(trx, {
      name: "retention.updated",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "organization", id: input.orgId },
      before: { chat_retention_days: before.chat_retention_days },
      after: { chat_retention_days: input.days },
    });
    return row;
  });
}
