/**
 * How a command owns its transaction: `withTransaction(deps, trx => …)` opens it, the command
 * calls repository functions of `db/queries` with `trx` (they never open their own) and records
 * its one audit event with `recordAudit(trx, event)` before returning. The change and its event
 * commit together or not at all.
 */
import type { Knex } from "knex";
import type { Db } from "../db/knex";

export type Transaction = Knex.Transaction;

export function withTransaction<T>(deps: { db: Db }, work: (trx: Transaction) => Promise<T>): Promise<T> {
  return deps.db.transaction(work);
}

/**
 * Runs `effect` once the transaction has committed, never if it rolls back: for what must not
 * happen before the change is visible (cutting a leaver's sockets before the row says inactive
 * would let a reconnect in through the handshake's database check).
 */
export function afterCommit(trx: Transaction, effect: () => void): void {
  trx.executionPromise.then(effect, () => undefined);
}
