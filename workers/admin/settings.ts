/**
 * The admin assistant: tool rounds and calls (defaults of organisation policy), retries and breaker of its tools, and how confirmed actions are applied.
 */
import { z } from "zod";
import { defineSection } from "../../lib/settings-section";

export const adminSettings = defineSection({
  tunables: {
    // Tool rounds and calls are the defaults of organisation policy (lib/organisation-policy.ts); the
    // retries and breaker ride out a database blip (test/workers/admin/tool-loop.test.ts).
    ADMIN_ACTION_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(24 * 3600)
      .describe("An admin action not confirmed within this long expires (`409 ACTION_EXPIRED`): its preview may be stale."),
    ADMIN_MAX_TOOL_ROUNDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(20)
      .default(5)
      .describe("Tool-calling rounds per admin turn before the model must answer with what it has."),
    ADMIN_MAX_TOOL_CALLS_PER_ROUND: z.coerce
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe("Tool calls the admin assistant runs from one model reply; the calls past it are answered with a result saying the limit, not run."),
    ADMIN_TOOL_RETRIES: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe(
        "Retries of an admin assistant tool call that failed on a database blip (connection lost, statement timeout, deadlock), with exponential backoff.",
      ),
    ADMIN_TOOL_RETRY_BASE_MS: z.coerce
      .number()
      .int()
      .min(1)
      .default(200)
      .describe("First backoff of those retries; each next one doubles, up to 8 times this."),
    ADMIN_TOOL_BREAKER_FAILURES: z.coerce
      .number()
      .int()
      .min(1)
      .default(5)
      .describe(
        "Consecutive failed calls (after their retries) of one admin tool in one organisation that switch the tool off for `ADMIN_TOOL_BREAKER_COOLDOWN_MS`.",
      ),
    ADMIN_TOOL_BREAKER_COOLDOWN_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(30_000)
      .describe("How long a tripped admin tool stays off: its calls are not attempted, and the model is told the tool is unavailable for now."),
    ADMIN_ACTION_BATCH_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(20)
      .describe("Items of a confirmed action applied between two `action_progress` events."),
    ADMIN_ACTION_BATCH_PAUSE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(0)
      .describe("Pause between batches, to keep a large bulk action from crowding out other database work."),
  },
});
