/**
 * The lost-turn sweep looks, every half minute, for recent questions that never got an answer.
 * A partial index on the questions' creation time keeps that a range scan over the last day's
 * questions instead of a pass over every message ever stored.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.raw("CREATE INDEX IF NOT EXISTS chat_messages_questions_created_at ON chat_messages (created_at) WHERE role = 'user'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS chat_messages_questions_created_at");
}
