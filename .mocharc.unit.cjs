/**
 * `npm run test:unit`: the logic suites — no Redis, no PostgreSQL (nor PGlite), no server or
 * workers, no browser — in seconds. They share the root hooks of the full run (test/support/
 * hooks.ts, which loads the stack only if a suite started it), and SKILLNET_TEST_UNIT makes
 * useStack() refuse: a suite listed here that reaches for the stack fails instead of starting it.
 * A new suite that tests logic belongs here; one that crosses an engine or a process boundary
 * belongs to the full run only (`npm test` runs these too, with everything else).
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
    "test/lib/{config,document-formats,format-sniffing,logger,prompt-markers,telemetry,ttl-cache}.test.ts",
    "test/lint/{logger-creation,raw-db-access}.test.ts",
    "test/offline-model/*.test.ts",
    "test/ops/prometheus-rules.test.ts",
    "test/queues/{redis-target,slots}.test.ts",
    "test/scripts/eval/scoring.test.ts",
    "test/server/metrics-labels.test.ts",
    "test/workers/admin/confirmation.test.ts",
    "test/workers/embedding-check.test.ts",
    "test/workers/ingestion/{chunking,extract,hostile-input,titles-extraction}.test.ts",
    "test/workers/llm/{client,context-window,cooldowns,errors,model-span,stream-idle}.test.ts",
    "test/workers/turns/{history,stage-failure}.test.ts",
    "test/workers/tutor/{citations,grounding-units,intent,language,prompt-injection-pieces}.test.ts",
    "test/workers/tutor/retrieval/*.test.ts",
  ],
};
