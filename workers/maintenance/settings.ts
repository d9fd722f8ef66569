/**
 * Deleting, erasing, exporting and expiring data: batch sizes and sweep intervals.
 */
import { z } from "zod";
import { defineSection } from "../../lib/settings-section";

export const dataLifecycleSettings = defineSection({
  tunables: {
    // Batches small enough that no transaction holds its locks for long, large enough that a big
    // organisation goes in minutes (test/workers/organisations/org-delete-resume.test.ts).
    ORG_DELETE_BATCH_ROWS: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(5_000)
      .describe(
        "Rows an organisation's deletion (`org-delete` queue) removes per transaction from each big table (chunks, messages…): small " +
          "enough that no batch holds its locks for long, large enough that a big organisation goes in minutes.",
      ),
    RETENTION_SWEEP_BATCH_SESSIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(500)
      .describe(
        "Chat sessions the `chat-retention` sweep deletes per transaction (with their messages, feedback and question vectors) for an " +
          "organisation with a retention (`PUT /api/v1/admin/retention`); each sweep run does at most 20 such batches per organisation and " +
          "the next run goes on where it stopped.",
      ),
    RETENTION_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(300_000)
      .describe("How often the `chat-retention` maintenance sweep runs (5 minutes: chats are kept whole days, a backlog drains run by run)."),
    PERSON_EXPORT_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(720)
      .default(24)
      .describe("How long a person's data export (`/api/v1/me/export`, an admin's export of one person) can be downloaded once built."),
    PERSON_ERASE_BATCH_ROWS: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(1_000)
      .describe("Rows a person's erasure (`person-data` queue) deletes or unlinks per transaction from each table, so no batch holds its locks for long."),
  },
});
