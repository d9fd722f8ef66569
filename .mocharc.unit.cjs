/**
 * `npm run test:unit`: the logic suites — no Redis, no PostgreSQL (nor PGlite), no server or
 * workers, no browser — in seconds. They share the root hooks of the full run (test/support/
 * hooks.ts, which loads the stack only if a suite started it), and SKILLNET_TEST_UNIT makes
 * useStack() refuse: a suite listed here that reaches for the stack fails instead of starting it.
 * A new suite that tests logic belongs here; one that crosses an engine or starts processes (the
 * config and logger suites start the server, promtool checks the alert rules) belongs to the full
 * run only (`npm test` runs these too, with everything else).
 */
process.env.SKILLNET_TEST_UNIT = "1";

module.exports = {
  "node-option": ["import=tsx"],
  require: ["test/support/hooks.ts"],
  timeout: 30000,
  exit: true,
  spec: [
    "test/commands/queue-refusals.test.ts",
    "test/docs/*.test.ts",
    "test/lib/catalog-import-file.test.ts",
    "test/lib/catalog-records.test.ts",
    "test/lib/document-formats.test.ts",
    "test/lib/language-detection.test.ts",
    "test/lib/messages.test.ts",
    "test/lib/format-sniffing.test.ts",
    "test/lib/organisation-slug.test.ts",
    "test/lib/nul-text.test.ts",
    "test/lib/outbound-guard.test.ts",
    "test/lib/secret-box.test.ts",
    "test/server/auth/sso/claims.test.ts",
    "test/server/auth/sso/provider-client.test.ts",
    "test/lib/prompt-markers.test.ts",
    "test/lib/telemetry.test.ts",
    "test/workers/person-data/export-archive.test.ts",
    "test/workers/adaptive-concurrency.test.ts",
    "test/lib/ttl-cache.test.ts",
    "test/lint/logger-creation.test.ts",
    "test/lint/raw-db-access.test.ts",
    "test/ops/folder-sync.test.ts",
    "test/ops/sync-client.test.ts",
    "test/offline-model/*.test.ts",
    "test/queues/redis-target.test.ts",
    "test/server/auth/token-claims.test.ts",
    "test/queues/slots.test.ts",
    "test/scripts/eval/scoring.test.ts",
    "test/server/metrics-labels.test.ts",
    "test/server/routes/insights/retention-window.test.ts",
    "test/server/scim/scim-logic.test.ts",
    "test/workers/admin/admin-language.test.ts",
    "test/workers/admin/confirmation.test.ts",
    "test/workers/admin/fit-request.test.ts",
    "test/workers/embedding-check.test.ts",
    "test/workers/ingestion/chunking.test.ts",
    "test/workers/ingestion/extract.test.ts",
    "test/workers/ingestion/hostile-input.test.ts",
    "test/workers/ingestion/titles-extraction.test.ts",
    "test/workers/llm/client.test.ts",
    "test/workers/llm/context-window.test.ts",
    "test/workers/llm/cooldowns.test.ts",
    "test/workers/llm/errors.test.ts",
    "test/workers/llm/json-reply.test.ts",
    "test/workers/llm/model-span.test.ts",
    "test/workers/llm/providers.test.ts",
    "test/workers/llm/stream-idle.test.ts",
    "test/workers/turns/history.test.ts",
    "test/workers/turns/stage-failure.test.ts",
    "test/workers/tutor/citations.test.ts",
    "test/workers/tutor/grounding-units.test.ts",
    "test/workers/tutor/intent.test.ts",
    "test/workers/tutor/language.test.ts",
    "test/workers/tutor/prompt-injection-pieces.test.ts",
    "test/workers/tutor/retrieval/*.test.ts",
  ],
};
