/** Request and response shapes of a person's data export (their own, or an admin's of one person) and erasure (admins). */
import { z } from "zod";

const timestamp = z.iso.datetime({ offset: true });
const ERROR_CODE_TEXT =
  "Why it failed: DATABASE_ERROR, DATABASE_TIMEOUT, DATABASE_UNAVAILABLE or INTERNAL_ERROR (details in the server log), QUEUE_UNAVAILABLE, PERSON_GONE; null unless failed.";

export const exportParams = z.object({ id: z.uuid({ error: "export id must be a UUID" }) });
export const personParams = z.object({ id: z.uuid({ error: "person id must be a UUID" }) });
export const personExportParams = z.object({
  id: z.uuid({ error: "person id must be a UUID" }),
  exportId: z.uuid({ error: "export id must be a UUID" }),
});

export const exportRecord = z.strictObject({
  id: z.uuid(),
  status: z
    .enum(["queued", "running", "completed", "failed", "expired"])
    .describe("`completed` until `expires_at`, then `expired` (the archive is no longer served)."),
  requested_via: z.enum(["self", "admin"]).describe("Whose copy: the person's own, or an admin's."),
  created_at: timestamp,
  finished_at: timestamp.nullable(),
  expires_at: timestamp.nullable(),
  size_bytes: z.number().int().nullable().describe("The archive's size once built."),
  counts: z.record(z.string(), z.number()).describe("How many sessions, messages, ratings, enrolments, skills… it holds."),
  error: z.string().nullable(),
  error_code: z.string().nullable().describe(ERROR_CODE_TEXT),
  download_url: z.string().nullable().describe("Where to download the zip while it is `completed`; null otherwise."),
});
export type ExportRecord = z.infer<typeof exportRecord>;

export const oneExportResponse = z.strictObject({ export: exportRecord });
export const latestExportResponse = z.strictObject({ export: exportRecord.nullable().describe("The newest export, or null when none was asked for.") });

export const erasureBody = z.strictObject({
  confirm: z
    .string({ error: "confirm must be the person's email address" })
    .min(1, "confirm must be the person's email address")
    .max(320)
    .describe("The person's email address, as the console shows it: erasing cannot be undone."),
  learning_records: z
    .enum(["keep", "erase"])
    .default("keep")
    .describe("`keep` (the default): enrolments, skill levels, exercise attempts and review schedules stay, on the anonymised person; `erase`: they go too."),
});

export const erasureRecord = z.strictObject({
  id: z.uuid(),
  status: z.enum(["queued", "running", "completed", "failed"]),
  step: z.string().nullable().describe("The step running or last done: jobs, redis-keys, rows, leftovers, anonymise, then done."),
  runs: z.number().int().describe("How many times the job was queued (a failed erasure asked for again runs again)."),
  learning_records: z.enum(["keep", "erase"]),
  removed: z
    .record(z.string(), z.number())
    .describe("Counts so far by kind: `rows.<table>`, `unlinked.<table>.<column>`, `scrubbed.<table>`, `redis_keys`, `jobs`."),
  error: z.string().nullable(),
  error_code: z.string().nullable().describe(ERROR_CODE_TEXT),
  created_at: timestamp,
  finished_at: timestamp.nullable(),
});

export const erasureResponse = z.strictObject({ erasure: erasureRecord });
