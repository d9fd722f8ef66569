/**
 * A chat turn can be cancelled by its owner: the assistant message then keeps the partial
 * answer (possibly empty) with status `cancelled`, so the history shows where it stopped and
 * prompts leave it out (they read `complete` messages only).
 */
import type { Knex } from "knex";

// The name Postgres gave the inline CHECK of 20261129000003_chat (`<table>_<column>_check`).
const CONSTRAINT = "chat_messages_status_check";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE chat_messages DROP CONSTRAINT IF EXISTS ${CONSTRAINT}`);
  await knex.raw(`ALTER TABLE chat_messages ADD CONSTRAINT ${CONSTRAINT} CHECK (status IN ('complete', 'failed', 'cancelled'))`);
}

export async function down(knex: Knex): Promise<void> {
  // A cancelled reply becomes a failed one: the closest status the older schema knows.
  await knex("chat_messages").where({ status: "cancelled" }).update({ status: "failed" });
  await knex.raw(`ALTER TABLE chat_messages DROP CONSTRAINT IF EXISTS ${CONSTRAINT}`);
  await knex.raw(`ALTER TABLE chat_messages ADD CONSTRAINT ${CONSTRAINT} CHECK (status IN ('complete', 'failed'))`);
}
