/** Request and response shapes of an organisation's chat retention (`/api/v1/admin/retention`). */
import { z } from "zod";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "../../../db/queries/chat-retention";

const timestamp = z.iso.datetime({ offset: true });
const days = `chat_retention_days must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, or null to keep chats forever`;

export const putRetentionBody = z.strictObject({
  chat_retention_days: z
    .number({ error: days })
    .int(days)
    .min(MIN_RETENTION_DAYS, days)
    .max(MAX_RETENTION_DAYS, days)
    .nullable()
    .describe("Chats whose last activity is older than this many days are deleted by the `chat-retention` sweep; null keeps them forever."),
});

const sweepCounts = {
  sessions: z.number().int().describe("Chat sessions deleted."),
  messages: z.number().int().describe("Messages deleted with them (their feedback and question vectors went too)."),
};

export const retentionResponse = z.strictObject({
  chat_retention_days: z.number().int().nullable().describe("null: chats are kept forever."),
  updated_at: timestamp.nullable().describe("When an admin last set it; null when never set."),
  updated_by: z.uuid().nullable(),
  last_sweep: z
    .strictObject({ finished_at: timestamp, ...sweepCounts })
    .nullable()
    .describe("The last finished sweep of this organisation's chats; null when none has run."),
  sweep_in_progress: z
    .strictObject({ started_at: timestamp, ...sweepCounts })
    .nullable()
    .describe("A sweep with more to delete than one run does (it goes on at the next run), and what it deleted so far."),
});

export type RetentionBody = z.infer<typeof retentionResponse>;
