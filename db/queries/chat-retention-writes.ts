/**
 * An organisation's retention setting as written, inside the transaction of
 * commands/chat-retention.ts (which records the audit event). The sweep's own batches are
 * chat-retention.ts's. Nothing here opens a transaction.
 */
import type { Knex } from "knex";
import { RETENTION_COLUMNS, type RetentionRow } from "./chat-retention";

export async function upsertChatRetention(trx: Knex.Transaction, input: { orgId: string; days: number | null; actorId: string }): Promise<RetentionRow> {
  const [row] = await trx("org_retention")
    .insert({ org_id: input.orgId, chat_retention_days: input.days, updated_by: input.actorId })
    .onConflict("org_id")
    .merge({ chat_retention_days: input.days, updated_by: input.actorId, updated_at: trx.fn.now() })
    .returning(RETENTION_COLUMNS);
  return row as RetentionRow;
}
