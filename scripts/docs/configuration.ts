/**
 * Writes docs/configuration.md from the sections lib/config.ts composes (each module's settings.ts) and
 * launcher/settings.ts (`npm start` only): each setting's description is its `.describe()` text, its reason to change is the section's
 * `why`, and its default is what the schema itself fills in, so
 * the page cannot say something the code does not do. `npm run docs:config` rewrites the page, the
 * settings block of docker-compose.yml (./compose-env.ts) and the lists of accepted document formats
 * in README.md and docs/http-api.md (./document-formats.ts); tests fail when a committed copy is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { environmentSchema, SECTIONS, type SectionName } from "../../lib/config";
import type { AnySection } from "../../lib/settings-section";
import { LAUNCHER_WHY, launcherSchema } from "../../launcher/settings";
import { COMPOSE_FILE, renderComposeFile } from "./compose-env";
import { FORMAT_LIST_FILES, renderFormatLists } from "./document-formats";

export const CONFIGURATION_PAGE = fileURLToPath(new URL("../../docs/configuration.md", import.meta.url));

type JsonSchema = { type?: string; enum?: string[]; minimum?: number; maximum?: number };

const BOOLEAN_WORDS = ["true", "false", "1", "0", "yes", "no"];

const code = (value: unknown): string => `\`${String(value)}\``;

/** What the schema fills in when the variable is unset; "—" when it stays unset. */
function defaultOf(field: z.ZodType): string {
  const parsed = field.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return "—";
  return code(parsed.data);
}

/** The values a variable takes, read from the schema's JSON Schema (input side: what you write). */
function acceptsOf(field: z.ZodType): string {
  const json = z.toJSONSchema(field, { io: "input", unrepresentable: "any" }) as JsonSchema;
  if (json.enum) {
    const values = [...json.enum];
    if (values.length === BOOLEAN_WORDS.length && BOOLEAN_WORDS.every((word) => values.includes(word))) return "`true` / `false` (or `1`/`0`, `yes`/`no`)";
    return values.map(code).join(", ");
  }
  if (json.type === "integer" || json.type === "number") {
    // zod's int() alone reports the safe-integer range, which says nothing to a reader.
    const maximum = json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER ? json.maximum : undefined;
    const minimum = json.minimum !== undefined && json.minimum > Number.MIN_SAFE_INTEGER ? json.minimum : undefined;
    if (minimum !== undefined && maximum !== undefined) return `${minimum}–${maximum}`;
    if (minimum !== undefined) return `≥ ${minimum}`;
    return "a number";
  }
  return "text";
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

interface OutsideVariable {
  name: string;
  default: string;
  meaning: string;
  why: string;
}

/**
 * Environment variables read outside the schemas, each with why an operator would set it. They
 * count towards the limit test/docs/environment-variables.test.ts keeps (60 in all), and that test
 * fails when product code reads a variable that is on no list.
 */
export const READ_OUTSIDE: readonly OutsideVariable[] = [
  {
    name: "SEED_DEMO",
    default: "`true`",
    meaning: "`npm run db:prepare` seeds the demo organisation unless this is `false`. `docker-compose.yml` defaults it to `false`.",
    why: "A deployment that must start empty (compose does) or a demo that wants the sample organisation.",
  },
  {
    name: "SKILLNET_KEY",
    default: "—",
    meaning: "`npm run sync` only: the integration key (`documents:write`) the folder sync sends ([integrations](integrations.md)).",
    why: "Required to run the folder sync; a variable, never a flag, so the key stays out of `ps` and shell history.",
  },
  {
    name: "POSTGRES_PASSWORD",
    default: "`skillnet`",
    meaning: "`docker-compose.yml` only: goes into `DATABASE_URL` unescaped, so keep it URL-safe.",
    why: "Any compose deployment reachable by others: the default password is public.",
  },
  {
    name: "SKILLNET_TEST_TUNABLES",
    default: "—",
    meaning:
      "Tests only, read only when `NODE_ENV=test`: a JSON object of tunables (below) for the processes a test spawns. A deployment cannot change a tunable this way.",
    why: "Never in a deployment: the test suite shortens timeouts and limits with it.",
  },
];

/** Standard variables read by a library, not by the product: listed, not counted. */
const STANDARD = [
  "`OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (tracing on), `OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER`, " +
    "`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*` and the rest of the OpenTelemetry " +
    "specification, read by its SDK ([operations](operations.md#tracing-with-opentelemetry)); `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` " +
    "puts questions and answers on model-call spans.",
  "`TEST_LOG_LEVEL` (log level of the processes `npm test` starts) and the `BENCH_*`, `EVAL_*` knobs of `npm run bench` / `npm run eval`: " +
    "development tools, read by the harness, never by the product.",
];

function environmentRows(shape: Record<string, z.ZodType>, why: Record<string, string>, source: string): string[] {
  return Object.entries(shape).map(([name, field]) => {
    const description = field.description;
    if (!description) throw new Error(`${name} has no .describe() text in ${source}`);
    if (!why[name]) throw new Error(`${name} has no reason to change it in ${source}`);
    return `| \`${name}\` | ${cell(defaultOf(field))} | ${cell(acceptsOf(field))} | ${cell(description)} | ${cell(why[name])} |`;
  });
}

const HEADER = "| Variable | Default | Accepts | Meaning | Why you would change it |\n|---|---|---|---|---|";

/** Where each section is declared (`config.retrieval` ← workers/tutor/retrieval/settings.ts); a new section without an entry does not compile. */
const SECTION_FILES: Record<SectionName, string> = {
  process: "lib/process-settings.ts",
  server: "server/settings.ts",
  database: "db/settings.ts",
  redis: "queues/settings.ts",
  llm: "workers/llm/settings.ts",
  embedding: "workers/llm/embedding-settings.ts",
  auth: "server/auth/settings.ts",
  outbound: "lib/outbound/settings.ts",
  workers: "workers/settings.ts",
  ingestion: "workers/ingestion/settings.ts",
  organisations: "commands/settings.ts",
  rateLimits: "server/middleware/settings.ts",
  sockets: "server/sockets/settings.ts",
  retrieval: "workers/tutor/retrieval/settings.ts",
  contentGaps: "workers/insights/settings.ts",
  admin: "workers/admin/settings.ts",
  dataLifecycle: "workers/maintenance/settings.ts",
};

export function renderConfigurationPage(): string {
  const sections = (Object.entries(SECTIONS) as Array<[SectionName, AnySection]>).filter(([, section]) => Object.keys(section.environment.shape).length > 0);
  const environment = sections
    .map(
      ([name, section]) =>
        `### \`config.${name}\` ([${SECTION_FILES[name]}](../${SECTION_FILES[name]}))\n\n${HEADER}\n${environmentRows(section.environment.shape, section.why, SECTION_FILES[name]).join("\n")}`,
    )
    .join("\n\n");
  const launcher = environmentRows(launcherSchema.shape, LAUNCHER_WHY, "launcher/settings.ts").join("\n");
  const outside = READ_OUTSIDE.map((v) => `| \`${v.name}\` | ${v.default} | ${cell(v.meaning)} | ${cell(v.why)} |`).join("\n");
  const tunables = (Object.entries(SECTIONS) as Array<[SectionName, AnySection]>)
    .flatMap(([name, section]) =>
      Object.entries(section.tunables.shape as Record<string, z.ZodType>).map(
        ([tunable, field]) =>
          `| ${tunable} | \`config.${name}\` ([${SECTION_FILES[name]}](../${SECTION_FILES[name]})) | ${cell(defaultOf(field))} | ${cell(field.description ?? "")} |`,
      ),
    )
    .join("\n");
  const count = Object.keys(environmentSchema.shape).length + Object.keys(launcherSchema.shape).length + READ_OUTSIDE.length;
  return `# Configuration

<!-- Generated by \`npm run docs:config\` from lib/config.ts, the settings.ts beside each module and launcher/settings.ts. Edit the schemas' .describe() texts and \`why\` there, not this page. -->

Settings have three homes ([architecture](architecture.md#where-a-setting-goes)): **environment variables** for facts about a
deployment (below, ${count} in all), **constants** for what was measured or chosen for the product (the tunables at the end of this
page: not read from the environment), and **organisation policy** in Postgres for what an operator sets per organisation
(rate limits, the admin assistant's tool bounds, AI allowance, storage quota, retention: \`npm run org -- policy\`,
\`/api/v1/ops/orgs/:id/policy\`).

Every process (server, workers, scripts) reads its settings through \`getConfig()\` in
[\`lib/config.ts\`](../lib/config.ts), which composes the sections each module declares beside itself; the launcher's own settings
(\`npm start\` only: \`DATA_DIR\`, \`EMBEDDED_*\`) are in [\`launcher/settings.ts\`](../launcher/settings.ts).
A bad value stops the process with one message that names every faulty variable. An empty value counts as unset only for variables with no default (URLs,
keys, model overrides); elsewhere \`PORT=\` is an error, not the default. Copy
[\`.env.example\`](../.env.example) for a commented template: \`npm start\` reads \`.env\` beside
\`package.json\` (variables already set in the shell win), and Docker Compose reads it too:
\`docker-compose.yml\` passes every variable below to its containers (the same command generates its list).
Variables an older release read and this one does not are listed, with what replaced each, in
[operations](operations.md#settings-removed-in-the-settings-split); a process that still finds one set logs it at start-up.

Switching models (embedding width, fallback chains, Ollama and vLLM): see the
[README](../README.md#switching-to-a-real-model) and [operations](operations.md#models).

## Environment variables

${environment}

### The launcher (\`npm start\` only)

${HEADER}
${launcher}

### Read outside the schemas

| Variable | Default | Meaning | Why you would change it |
|---|---|---|---|
${outside}

### Standard, not counted

${STANDARD.map((line) => `- ${line}`).join("\n")}

## Tunables (constants, not environment variables)

Measured or chosen for the product, declared beside their module with the measurement behind them; changing one is a code
change with its evidence (\`npm run eval\`, \`npm run bench\`). The rate limits of chat, uploads, re-index and content gaps and the
admin assistant's tool rounds and calls per round are the defaults of organisation policy.

| Tunable | Section | Value | Meaning |
|---|---|---|---|
${tunables}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The configuration page, the compose environment and the document-format lists in the docs.
  const outputs: Array<[path: string, text: string]> = [
    [CONFIGURATION_PAGE, renderConfigurationPage()],
    [COMPOSE_FILE, renderComposeFile()],
    ...FORMAT_LIST_FILES.map((path): [string, string] => [path, renderFormatLists(readFileSync(path, "utf8"))]),
  ];
  const stale = outputs.filter(([path, text]) => readFileSync(path, "utf8") !== text);
  if (process.argv.includes("--check")) {
    for (const [path] of stale) process.stderr.write(`${path} is out of date: run npm run docs:config\n`);
    if (stale.length > 0) process.exit(1);
  } else {
    for (const [path, text] of stale) writeFileSync(path, text);
  }
}
