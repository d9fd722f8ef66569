/**
 * A test's settings, split: environment variables stay variables, and the names of tunables
 * (constants of the product, lib/settings-section.ts) move into SKILLNET_TEST_TUNABLES, which the
 * product reads only under NODE_ENV=test. One call at each place a test parses a configuration or
 * spawns a process, so a suite keeps writing `{ WORKER_LOCK_DURATION_MS: "2000" }` beside
 * `WORKER_QUEUES`; an `undefined` tunable drops the stack's own value for it.
 */
import { type Config, SECTIONS, tunablesSchema } from "../../lib/config";
import type { AnySection } from "../../lib/settings-section";
import { TEST_TUNABLES_VARIABLE, testTunablesOf } from "../../lib/test-tunables";

export function testEnv(settings: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  const tunables: Record<string, string | number | boolean> = { ...testTunablesOf({ ...settings, NODE_ENV: "test" }).values };
  let touched = false;
  for (const [name, value] of Object.entries(settings)) {
    if (name === TEST_TUNABLES_VARIABLE) continue;
    if (!(name in tunablesSchema.shape)) {
      env[name] = value;
      continue;
    }
    touched = true;
    if (value === undefined) delete tunables[name];
    else tunables[name] = value;
  }
  if (touched) env.NODE_ENV ??= "test";
  if (touched || settings[TEST_TUNABLES_VARIABLE] !== undefined) env[TEST_TUNABLES_VARIABLE] = JSON.stringify(tunables);
  return env;
}

/**
 * `config` with some settings changed by name (`{ RETRIEVAL_EXACT_MAX_CHUNKS: 10, TRUST_PROXY: 1 }`),
 * each put into its section and that section's derived values computed again: for a suite that
 * builds a second app or worker deps in-process on the stack's configuration.
 */
export function configWith(config: Config, changes: Record<string, unknown>): Config {
  const sections: Record<string, Record<string, unknown>> = { ...config };
  for (const [name, value] of Object.entries(changes)) {
    const entry = Object.entries(SECTIONS).find(([, section]) => name in section.environment.shape || name in section.tunables.shape);
    if (!entry) throw new Error(`${name} is not a setting of any section of lib/config.ts`);
    sections[entry[0]] = { ...sections[entry[0]], [name]: value };
  }
  for (const [key, section] of Object.entries(SECTIONS) as Array<[string, AnySection]>) {
    sections[key] = { ...sections[key], ...section.derive(sections[key] as never) };
  }
  return sections as unknown as Config;
}
