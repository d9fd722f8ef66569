/**
 * Tests that spawn the product's processes (a worker that must lose its lock in 2 s, a launcher
 * that must give up after 2 crashes) shorten its tunables through one JSON variable, read only when
 * NODE_ENV=test: a deployment cannot reach a tunable this way, and the tests need no deployment
 * variable per constant. In-process tests pass `parseConfig(env, { overrides })` instead.
 */
export const TEST_TUNABLES_VARIABLE = "SKILLNET_TEST_TUNABLES";

type TunableValue = string | number | boolean;

/** The overrides `SKILLNET_TEST_TUNABLES` carries (empty unless NODE_ENV=test), or why they cannot be read. */
export function testTunablesOf(env: NodeJS.ProcessEnv): { values: Record<string, TunableValue>; problem?: string } {
  const raw = env[TEST_TUNABLES_VARIABLE]?.trim();
  if (env.NODE_ENV?.trim() !== "test" || !raw) return { values: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { values: {}, problem: `${TEST_TUNABLES_VARIABLE}: is not valid JSON; write an object like {"WORKER_LOCK_DURATION_MS":2000}` };
  }
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((value) => ["string", "number", "boolean"].includes(typeof value));
  if (!valid) return { values: {}, problem: `${TEST_TUNABLES_VARIABLE}: must be a JSON object of names to strings, numbers or booleans` };
  return { values: parsed as Record<string, TunableValue> };
}

/**
 * `env` with `values` merged into its SKILLNET_TEST_TUNABLES (later values win), for a test or a
 * measuring script that starts the product's processes with shortened tunables.
 */
export function withTestTunables(env: Record<string, string | undefined>, values: Record<string, TunableValue>): Record<string, string | undefined> {
  const current = testTunablesOf({ ...env, NODE_ENV: "test" }).values;
  return { ...env, [TEST_TUNABLES_VARIABLE]: JSON.stringify({ ...current, ...values }) };
}
