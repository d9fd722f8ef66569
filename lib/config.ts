/**
 * The one place that reads the environment. Every process (server, worker, scripts) calls
 * `getConfig()`; a bad environment is reported all at once, by variable name, so an operator
 * fixes everything in one pass instead of one restart per typo.
 *
 * The settings themselves are declared beside the modules that use them (`<module>/settings.ts`,
 * lib/settings-section.ts): this file composes those sections, and each consumer reads its own
 * (`config.retrieval`, `config.database`), typed to that section.
 */
import type { Logger } from "pino";
import { z } from "zod";
import { authSettings } from "../server/auth/settings";
import { rateLimitSettings } from "../server/middleware/settings";
import { serverSettings } from "../server/settings";
import { socketSettings } from "../server/sockets/settings";
import { adminSettings } from "../workers/admin/settings";
import { ingestionSettings } from "../workers/ingestion/settings";
import { contentGapSettings } from "../workers/insights/settings";
import { embeddingSettings } from "../workers/llm/embedding-settings";
import { llmSettings } from "../workers/llm/settings";
import { dataLifecycleSettings } from "../workers/maintenance/settings";
import { workerSettings } from "../workers/settings";
import { retrievalSettings } from "../workers/tutor/retrieval/settings";
import { organisationDefaultSettings } from "../commands/settings";
import { databaseSettings } from "../db/settings";
import { redisSettings } from "../queues/settings";
import { outboundSettings } from "./outbound/settings";
import { processSettings } from "./process-settings";
import { booleanFlag, type AnySection, type SettingsOf } from "./settings-section";
import { TEST_TUNABLES_VARIABLE, testTunablesOf } from "./test-tunables";

export { port } from "./settings-section";
export { logLevelSetting } from "./process-settings";

/** Every section, by the name consumers read it under. The order is docs/configuration.md's. */
export const SECTIONS = {
  process: processSettings,
  server: serverSettings,
  database: databaseSettings,
  redis: redisSettings,
  llm: llmSettings,
  embedding: embeddingSettings,
  auth: authSettings,
  outbound: outboundSettings,
  workers: workerSettings,
  ingestion: ingestionSettings,
  organisations: organisationDefaultSettings,
  rateLimits: rateLimitSettings,
  sockets: socketSettings,
  retrieval: retrievalSettings,
  contentGaps: contentGapSettings,
  admin: adminSettings,
  dataLifecycle: dataLifecycleSettings,
} satisfies Record<string, AnySection>;

type Sections = typeof SECTIONS;
export type SectionName = keyof Sections;

/** Every environment variable of the product, flat: what docs, `.env.example` and compose list. */
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;
type EnvironmentShape = UnionToIntersection<{ [K in SectionName]: Sections[K]["environment"]["shape"] }[SectionName]>;

export const environmentSchema = z.object(Object.assign({}, ...Object.values(SECTIONS).map((section) => section.environment.shape)) as EnvironmentShape);

/** Every tunable, flat (name → schema with its default): they are constants, not environment variables. */
export const tunablesSchema = z.object(Object.assign({}, ...Object.values(SECTIONS).map((section) => section.tunables.shape)) as Record<string, z.ZodType>);

/** The reason an operator would change each environment variable (docs/configuration.md prints it). */
export const WHY_CHANGE: Readonly<Record<string, string>> = Object.assign({}, ...Object.values(SECTIONS).map((section) => section.why));

export type Config = { readonly [K in SectionName]: SettingsOf<Sections[K]> };

/** Test-only values for tunables (and nothing else), by their names: see lib/settings-section.ts. */
export type TunableOverrides = Readonly<Record<string, string | number | boolean | undefined>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * dev-login hands out a token for an email alone, so a production process refuses to start with
 * it on. Read from the raw environment so it is reported together with any other bad variable.
 */
function devLoginProblems(env: NodeJS.ProcessEnv): string[] {
  const devLogin = booleanFlag.safeParse(env.DEV_LOGIN_ENABLED);
  if (env.NODE_ENV?.trim() === "production" && devLogin.success && devLogin.data) {
    return [
      "DEV_LOGIN_ENABLED: dev-login is a development tool and is refused when NODE_ENV=production (unset DEV_LOGIN_ENABLED, or use NODE_ENV=development for a demo)",
    ];
  }
  return [];
}

/**
 * Variables an older release read that are now constants or organisation policy (docs/operations.md
 * says what replaced each). Set in a test's environment they are an error, since the test would
 * silently run with the default; in a deployment the processes log them once at start-up.
 */
const RETIRED_VARIABLES = ["TRUST_PROXY_HOPS", "OFFLINE_LLM_PORT", "OFFLINE_LLM_HOST", "PGLITE_DEBUG", "PGLITE_PROTOCOL_LOCK", "SKILLNET_URL"];

/** The retired variables (tunables now, or removed) that `env` still sets: an upgrading operator's leftovers. */
export function retiredVariablesIn(env: NodeJS.ProcessEnv): string[] {
  return [...Object.keys(tunablesSchema.shape), ...RETIRED_VARIABLES, "LAUNCHER_MAX_FAST_CRASHES"].filter((name) => env[name] !== undefined);
}

/** Logs once, at a process's start, the retired variables its environment still sets: they are ignored, and the operator should know. */
export function warnRetiredVariables(log: Pick<Logger, "warn">, env: NodeJS.ProcessEnv = process.env): void {
  const retired = retiredVariablesIn(env);
  if (retired.length > 0) {
    log.warn({ retired }, "retired settings are set and ignored: see docs/operations.md#settings-removed-in-the-settings-split for what replaced each");
  }
}

function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`);
}

/** The tunables' input: SKILLNET_TEST_TUNABLES (tests only), then the caller's overrides over it. */
function tunableInput(env: NodeJS.ProcessEnv, overrides: TunableOverrides, problems: string[]): Record<string, unknown> {
  const fromEnv = testTunablesOf(env);
  if (fromEnv.problem) problems.push(fromEnv.problem);
  const input = { ...fromEnv.values, ...overrides };
  for (const name of Object.keys(input)) {
    if (!(name in tunablesSchema.shape)) problems.push(`${name}: is not a tunable (overrides and ${TEST_TUNABLES_VARIABLE} take tunables only)`);
  }
  if (env.NODE_ENV?.trim() === "test") {
    for (const name of retiredVariablesIn(env)) {
      problems.push(`${name}: is not an environment variable any more; a test passes a tunable in parseConfig's overrides or ${TEST_TUNABLES_VARIABLE}`);
    }
  }
  return input;
}

/**
 * Parses an environment (and, for tests, overrides of tunables); throws one ConfigError listing
 * every bad variable of every section at once.
 */
export function parseConfig(env: NodeJS.ProcessEnv, options: { overrides?: TunableOverrides } = {}): Config {
  const problems: string[] = [];
  const tunables = tunableInput(env, options.overrides ?? {}, problems);
  const values: Record<string, unknown> = {};
  for (const [name, section] of Object.entries(SECTIONS) as Array<[SectionName, AnySection]>) {
    const environment = section.environment.safeParse(env);
    const tuned = section.tunables.safeParse(tunables);
    if (!environment.success) problems.push(...issuesOf(environment.error));
    if (!tuned.success) problems.push(...issuesOf(tuned.error));
    if (environment.success && tuned.success) {
      const parsed = { ...environment.data, ...tuned.data };
      values[name] = { ...parsed, ...section.derive(parsed) };
    }
  }
  problems.push(...devLoginProblems(env));
  if (problems.length > 0) throw new ConfigError(problems);
  const config = values as Config;
  const { JWT_TTL_SECONDS, JWT_MAX_TTL_SECONDS, ACCESS_TOKEN_TTL_SECONDS } = config.auth;
  if (JWT_TTL_SECONDS > JWT_MAX_TTL_SECONDS) {
    problems.push(
      `JWT_TTL_SECONDS: ${JWT_TTL_SECONDS} exceeds JWT_MAX_TTL_SECONDS (${JWT_MAX_TTL_SECONDS}); tokens would be refused as soon as they are issued`,
    );
  }
  if (ACCESS_TOKEN_TTL_SECONDS > JWT_MAX_TTL_SECONDS) {
    problems.push(
      `ACCESS_TOKEN_TTL_SECONDS: ${ACCESS_TOKEN_TTL_SECONDS} exceeds JWT_MAX_TTL_SECONDS (${JWT_MAX_TTL_SECONDS}); tokens would be refused as soon as they are issued`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

let cached: Config | undefined;

/** The process's configuration, parsed once from `process.env`. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Tests change the environment between suites; this forgets the cached parse. */
export function resetConfig(): void {
  cached = undefined;
}

/** What a model call is for: it picks the model (below) and labels the call's usage row. */
export type LlmUseCase = "tutor" | "generation" | "admin" | "ingestion" | "summary";

type ModelSetting = "LLM_MODEL_TUTOR" | "LLM_MODEL_GENERATION" | "LLM_MODEL_ADMIN";

/**
 * The one use case → model table: the settings that choose a use case's model, most specific
 * first, with LLM_MODEL after them all. `ingestion` only labels embedding calls (their model is
 * EMBEDDING_MODEL), so no chat setting names it.
 */
const MODEL_SETTINGS: Record<LlmUseCase, readonly ModelSetting[]> = {
  tutor: ["LLM_MODEL_TUTOR"],
  generation: ["LLM_MODEL_GENERATION", "LLM_MODEL_TUTOR"],
  admin: ["LLM_MODEL_ADMIN"],
  ingestion: [],
  summary: ["LLM_MODEL_TUTOR"],
};

/** Which model (or comma-separated fallback chain) a use case runs on. */
export function modelFor(llm: Config["llm"], useCase: LlmUseCase): string {
  for (const setting of MODEL_SETTINGS[useCase]) {
    const model = llm[setting];
    if (model) return model;
  }
  return llm.LLM_MODEL;
}

/** The setting an error about a use case's model should tell the operator to check. */
export function modelSettingOf(useCase: LlmUseCase): string {
  return MODEL_SETTINGS[useCase][0] ?? "LLM_MODEL";
}

/** Fails with a clear message when a process needs a variable the launcher normally sets. */
export function requireSetting<S extends object, K extends keyof S & string>(section: S, key: K): NonNullable<S[K]> {
  const value = section[key];
  if (value === undefined || value === null) {
    throw new ConfigError([`${key}: is required for this process (npm start sets it in embedded mode)`]);
  }
  return value as NonNullable<S[K]>;
}
