/**
 * The command line of `npm run org`: its usage, which options each command takes, and the
 * command, options and arguments a line names (a mistake is a UsageError, exit 2).
 */
import { parseArgs } from "node:util";
import type { Operator } from "../../commands/organisations";
import type { Db } from "../../db/knex";
import type { Config } from "../../lib/config";
import type { Output } from "./org-output";

export const USAGE = `Usage: npm run org -- <command> [options]   (image: node dist/ops/cli/org.js <command>)

  create --name "Beta Logistics" [--slug beta-logistics] --admin-email a@beta.example [--admin-name "Ana"]
  list [--limit 50] [--offset 0]
  rename --org <slug|id> --name "New name"
  quota --org <slug|id> --bytes <N|default>
  delete --org <slug|id> --confirm <slug> [--no-wait]
  idp list --org <slug|id>              (an organisation may have several providers, each with its own domains)
  idp set --org <slug|id> [--id <provider id>] --issuer URL --client-id ID [--client-secret S|-|--clear-client-secret]
          --display-name "Acme SSO" [--domains a.com,b.com] [--jit] [--admin-groups g1,g2] [--groups-claim groups] [--trust-email]
          (without --id: the organisation's only provider, created when there is none)
  idp set --org <slug|id> [--id <provider id>] --protocol saml (--metadata-url URL | --metadata-file idp.xml) --display-name "Acme SSO"
          [--allow-idp-initiated] [--domains …] [--jit] [--admin-groups …] [--groups-claim …] [--email-attribute mail]
  idp add --org <slug|id> …             (another provider: the options of idp set, OpenID or SAML, without --id)
  idp show --org <slug|id> [--id <provider id>]
  idp remove --org <slug|id> [--id <provider id>]
  domain approve <slug|id> <domain>     (verified by the operator: do it once you know the domain is theirs)
  domain list <slug|id>
  policy show <slug|id>                 (rate limits and the admin assistant's tool bounds, as set and as they apply)
  policy set <slug|id> name=N[,name=N…] (name=default puts one back; names: npm run org -- policy show)

  --json prints the result as JSON. --client-secret - reads the secret from standard input.`;

/** A mistake in how the command was typed: usage, exit 2. */
export class UsageError extends Error {}

const OPTIONS = {
  name: { type: "string" },
  slug: { type: "string" },
  "admin-email": { type: "string" },
  "admin-name": { type: "string" },
  org: { type: "string" },
  id: { type: "string" },
  confirm: { type: "string" },
  bytes: { type: "string" },
  limit: { type: "string" },
  offset: { type: "string" },
  issuer: { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  "clear-client-secret": { type: "boolean" },
  "display-name": { type: "string" },
  domains: { type: "string" },
  jit: { type: "boolean" },
  "admin-groups": { type: "string" },
  "groups-claim": { type: "string" },
  "trust-email": { type: "boolean" },
  protocol: { type: "string" },
  "metadata-url": { type: "string" },
  "metadata-file": { type: "string" },
  "allow-idp-initiated": { type: "boolean" },
  "email-attribute": { type: "string" },
  "no-wait": { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

/** What `idp set` and `idp add` may say of a provider, OIDC or SAML (`set` also names one by `--id`). */
const PROVIDER_SETTINGS: ReadonlyArray<keyof Values> = [
  "issuer",
  "client-id",
  "client-secret",
  "clear-client-secret",
  "display-name",
  "domains",
  "jit",
  "admin-groups",
  "groups-claim",
  "trust-email",
  "protocol",
  "metadata-url",
  "metadata-file",
  "allow-idp-initiated",
  "email-attribute",
];

const ALLOWED: Record<string, ReadonlyArray<keyof Values>> = {
  create: ["name", "slug", "admin-email", "admin-name"],
  list: ["limit", "offset"],
  rename: ["org", "name"],
  quota: ["org", "bytes"],
  delete: ["org", "confirm", "no-wait"],
  "idp set": ["org", "id", ...PROVIDER_SETTINGS],
  "idp add": ["org", ...PROVIDER_SETTINGS],
  "idp list": ["org"],
  "idp show": ["org", "id"],
  "idp remove": ["org", "id"],
  "domain approve": [],
  "domain list": [],
  "policy show": [],
  "policy set": [],
};

/** The arguments each command takes after its name (`domain approve acme acme.com`). */
const ARGUMENTS: Record<string, number> = { "domain approve": 2, "domain list": 1, "policy show": 1, "policy set": 2 };

export function required(values: Values, name: "name" | "admin-email" | "org" | "bytes" | "issuer" | "client-id" | "display-name"): string {
  const value = values[name]?.trim();
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

export function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

export const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** What a command runs with. */
export interface Session {
  config: Config;
  db: Db;
  out: Output;
  operator: Operator;
}

export type CommandLine = { help: true; exitCode: number } | { help?: false; command: string; values: Values; args: string[] };

export function parseCommandLine(argv: string[]): CommandLine {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return { help: true, exitCode: values.help ? 0 : 2 };
  const grouped = positionals[0] === "idp" || positionals[0] === "domain" || positionals[0] === "policy";
  const command = grouped ? `${positionals[0]} ${positionals[1] ?? ""}`.trim() : positionals[0]!;
  const allowed = ALLOWED[command];
  if (!allowed) throw new UsageError(`unknown command "${positionals.join(" ")}"`);
  const args = positionals.slice(grouped ? 2 : 1);
  const expected = ARGUMENTS[command] ?? 0;
  if (args.length > expected) throw new UsageError(`unexpected argument "${positionals.at(-1)}"`);
  if (args.length < expected) throw new UsageError(`"${command}" takes ${expected} argument(s)`);
  for (const given of Object.keys(values) as Array<keyof Values>)
    if (given !== "json" && !allowed.includes(given)) throw new UsageError(`--${given} does not apply to "${command}"`);
  return { command, values, args };
}
