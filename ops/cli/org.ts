/**
 * `npm run org -- <command>` (in the image: `node dist/ops/cli/org.js <command>`): onboarding and
 * removing organisations without SQL. Each command calls the same code as the operator endpoints
 * (commands/organisations.ts, commands/organisation-identity-provider.ts, commands/organisation-domains.ts,
 * commands/organisation-policy.ts) and is audited the same
 * way, in OPS_ORG's organisation. Exit codes: 0 done, 1 refused or failed, 2 a usage mistake.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError, getConfig, requireSetting, type Config } from "../../lib/config";
import { useEmbeddedConnection } from "../../lib/embedded-connection";
import { componentLogger } from "../../lib/logger";
import { Refusal } from "../../lib/refusal";
import { createDb, type Db } from "../../db/knex";
import { findOrgDeletion, type OrgDeletionRow } from "../../db/queries/org-deletion";
import { listOrganisations } from "../../db/queries/organizations";
import { createRedis, redisTargetOf } from "../../queues/connection";
import { queueLayoutOf } from "../../queues/layout";
import { JobProducer } from "../../queues/producer";
import { changeOrganisation, createOrganisation, organisationNamed, requestOrganisationDeletion, type Operator } from "../../commands/organisations";
import { findIdentityProviderOfOrg } from "../../db/queries/identity";
import { removeOrganisationIdentityProvider, saveOrganisationIdentityProvider } from "../../commands/organisation-identity-provider";
import { identityProviderChange, shownProvider } from "./org-identity-provider";
import { approveDomain } from "../../commands/organisation-domains";
import { listOrganisationDomains } from "../../db/queries/organisation-domains";
import { printDeletion, printOrganisations, type Output } from "./org-output";
import { runPolicyCommand } from "./org-policy";

const USAGE = `Usage: npm run org -- <command> [options]   (image: node dist/ops/cli/org.js <command>)

  create --name "Beta Logistics" [--slug beta-logistics] --admin-email a@beta.example [--admin-name "Ana"]
  list [--limit 50] [--offset 0]
  rename --org <slug|id> --name "New name"
  quota --org <slug|id> --bytes <N|default>
  delete --org <slug|id> --confirm <slug> [--no-wait]
  idp set --org <slug|id> --issuer URL --client-id ID [--client-secret S|-|--clear-client-secret] --display-name "Acme SSO"
          [--domains a.com,b.com] [--jit] [--admin-groups g1,g2] [--groups-claim groups] [--trust-email]
  idp show --org <slug|id>
  idp remove --org <slug|id>
  domain approve <slug|id> <domain>     (verified by the operator: do it once you know the domain is theirs)
  domain list <slug|id>
  policy show <slug|id>                 (rate limits and the admin assistant's tool bounds, as set and as they apply)
  policy set <slug|id> name=N[,name=N…] (name=default puts one back; names: npm run org -- policy show)

  --json prints the result as JSON. --client-secret - reads the secret from standard input.`;

/** A mistake in how the command was typed: usage, exit 2. */
class UsageError extends Error {}

const OPTIONS = {
  name: { type: "string" },
  slug: { type: "string" },
  "admin-email": { type: "string" },
  "admin-name": { type: "string" },
  org: { type: "string" },
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
  "no-wait": { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

const ALLOWED: Record<string, ReadonlyArray<keyof Values>> = {
  create: ["name", "slug", "admin-email", "admin-name"],
  list: ["limit", "offset"],
  rename: ["org", "name"],
  quota: ["org", "bytes"],
  delete: ["org", "confirm", "no-wait"],
  "idp set": [
    "org",
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
  ],
  "idp show": ["org"],
  "idp remove": ["org"],
  "domain approve": [],
  "domain list": [],
  "policy show": [],
  "policy set": [],
};

/** The arguments each command takes after its name (`domain approve acme acme.com`). */
const ARGUMENTS: Record<string, number> = { "domain approve": 2, "domain list": 1, "policy show": 1, "policy set": 2 };

function required(values: Values, name: "name" | "admin-email" | "org" | "bytes" | "issuer" | "client-id" | "display-name"): string {
  const value = values[name]?.trim();
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

interface Session {
  config: Config;
  db: Db;
  out: Output;
  operator: Operator;
}

// Quiet unless asked: the commands' own log lines would interleave with what the CLI prints.
process.env.LOG_LEVEL ??= "warn";
const log = componentLogger("org-cli");

async function run(command: string, values: Values, session: Session, args: string[]): Promise<number> {
  const { db, config, out, operator } = session;
  const deps = { db, log, config };
  switch (command) {
    case "create": {
      const { org, adminId } = await createOrganisation(deps, operator, {
        name: required(values, "name"),
        slug: values.slug,
        admin: { email: required(values, "admin-email"), name: values["admin-name"] },
      });
      out.result({ id: org.id, slug: org.slug, name: org.name, admin_id: adminId }, [`created ${org.slug} (${org.name})`, `id ${org.id}`, `admin ${adminId}`]);
      return 0;
    }
    case "list": {
      const page = await listOrganisations(db, { limit: count(values.limit, "limit", 50), offset: count(values.offset, "offset", 0) });
      printOrganisations(out, page);
      return 0;
    }
    case "rename": {
      const org = await changeOrganisation(deps, operator, required(values, "org"), { name: required(values, "name") });
      out.result({ id: org.id, slug: org.slug, name: org.name }, [`renamed ${org.slug} to "${org.name}"`]);
      return 0;
    }
    case "quota": {
      const bytes = required(values, "bytes");
      if (bytes !== "default" && !/^\d+$/.test(bytes)) throw new UsageError(`--bytes takes a number of bytes or "default", got "${bytes}"`);
      const quota = bytes === "default" ? null : Number(bytes);
      if (quota !== null && quota < 1024) throw new UsageError("--bytes must be at least 1024");
      const org = await changeOrganisation(deps, operator, required(values, "org"), { storage_quota_bytes: quota });
      out.result({ id: org.id, slug: org.slug, storage_quota_bytes: org.storage_quota_bytes }, [
        `${org.slug}: storage quota ${org.storage_quota_bytes === null ? `default (ORG_STORAGE_QUOTA_BYTES, ${config.organisations.ORG_STORAGE_QUOTA_BYTES} bytes)` : `${org.storage_quota_bytes} bytes`}`,
      ]);
      return 0;
    }
    case "delete":
      return deleteOrganisation(values, session);
    case "idp set": {
      const org = await organisationNamed(deps, required(values, "org"));
      const secret = values["client-secret"] === "-" ? readFileSync(0, "utf8").trim() : values["client-secret"];
      if (secret !== undefined && values["clear-client-secret"]) throw new UsageError("--client-secret and --clear-client-secret exclude each other");
      if (secret !== undefined && !config.auth.SECRETS_KEY)
        throw new UsageError(
          "SECRETS_KEY is not set, so the client secret cannot be stored encrypted. Set SECRETS_KEY (at least 32 characters, the same value the server and workers use) and run this again.",
        );
      const change = identityProviderChange(
        {
          issuer: required(values, "issuer"),
          clientId: required(values, "client-id"),
          clientSecret: values["clear-client-secret"] ? null : secret,
          displayName: required(values, "display-name"),
          domains: list(values.domains),
          jit: values.jit ?? false,
          claimMapping: {
            ...(values["groups-claim"] ? { groups: values["groups-claim"] } : {}),
            ...(values["admin-groups"] ? { admin_groups: list(values["admin-groups"]) } : {}),
            ...(values["trust-email"] ? { trust_email: true } : {}),
          },
        },
        await findIdentityProviderOfOrg(db, org.id),
      );
      // The operator types these domains, so they count as approved by the operator (verified, like
      // `domain approve`): onboarding keeps working without a TXT record (docs/single-sign-on.md).
      for (const domain of new Set(change.allowed_domains.map((d) => d.trim().toLowerCase()))) await approveDomain(deps, operator, org.id, domain);
      const saved = await saveOrganisationIdentityProvider(deps, { via: "cli", userId: null }, org.id, change);
      const provider = shownProvider(saved);
      out.result(provider, [
        `${values.org}: identity provider "${provider.display_name}" stored (${provider.issuer}, client secret ${provider.has_client_secret ? "set" : "none"})`,
      ]);
      return 0;
    }
    case "idp show": {
      const row = await findIdentityProviderOfOrg(db, (await organisationNamed(deps, required(values, "org"))).id);
      const provider = row && shownProvider(row);
      if (!provider) {
        out.result(null, [`${values.org} has no identity provider`]);
        return 0;
      }
      out.result(
        provider,
        Object.entries(provider).map(
          ([key, value]) => `${key}: ${typeof value === "object" && value !== null && !(value instanceof Date) ? JSON.stringify(value) : String(value)}`,
        ),
      );
      return 0;
    }
    case "domain approve": {
      const [orgName = "", domain = ""] = args;
      const approved = await approveDomain(deps, operator, orgName, domain.trim().toLowerCase().replace(/\.$/, ""));
      out.result(approved, [`${orgName}: ${approved.domain} verified (approved by the operator)`]);
      return 0;
    }
    case "domain list": {
      const org = await organisationNamed(deps, args[0] ?? "");
      const domains = await listOrganisationDomains(db, org.id);
      out.result(
        domains,
        domains.length === 0 ? [`${org.slug} has claimed no domain`] : domains.map((d) => `${d.domain}: ${d.status}${d.method ? ` (${d.method})` : ""}`),
      );
      return 0;
    }
    case "policy show":
    case "policy set":
      return runPolicyCommand(command, args, { deps, operator, out }, (problem) => new UsageError(problem));
    case "idp remove": {
      const org = await organisationNamed(deps, required(values, "org"));
      const removed = await removeOrganisationIdentityProvider(deps, { via: "cli", userId: null }, org.id);
      out.result({ removed }, [removed ? `${values.org}: identity provider removed` : `${values.org} had no identity provider`]);
      return 0;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

/** Queues the deletion, then follows its record until it ends (workers do the work), printing each step and what was removed. */
async function deleteOrganisation(values: Values, { db, config, out, operator }: Session): Promise<number> {
  const orgName = required(values, "org");
  if (!values.confirm) {
    const org = await organisationNamed({ db }, orgName);
    throw new UsageError(`deleting ${org.slug} removes everything it owns and cannot be undone: add --confirm ${org.slug}`);
  }
  const redis = createRedis(redisTargetOf(config), "producer", log);
  const producer = new JobProducer(redis, log, queueLayoutOf(config));
  let deletion: OrgDeletionRow;
  try {
    deletion = await requestOrganisationDeletion({ db, log, config, producer }, operator, { org: orgName, confirm: values.confirm });
  } finally {
    await producer.close();
    redis.disconnect();
  }
  out.progress(`deletion ${deletion.id} of ${deletion.slug}: ${deletion.status}`);
  if (values["no-wait"]) {
    out.result({ id: deletion.id, status: deletion.status }, [`follow it with GET /api/v1/ops/orgs/${deletion.target_org_id}/deletion`]);
    return 0;
  }
  const started = Date.now();
  let step = deletion.step;
  let warned = false;
  for (;;) {
    const current = await findOrgDeletion(db, deletion.id);
    if (!current) throw new Error(`the deletion record ${deletion.id} disappeared`);
    if (current.step !== step && current.step) out.progress(`step ${current.step}`);
    step = current.step;
    if (current.status === "completed" || current.status === "failed") {
      printDeletion(out, current);
      return current.status === "completed" ? 0 : 1;
    }
    if (!warned && current.status === "queued" && Date.now() - started > 15_000) {
      out.progress("still queued after 15 s: is a worker serving the org-delete queue running? (Ctrl-C leaves the deletion queued)");
      warned = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
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

  const embedded = useEmbeddedConnection(process.env);
  if (embedded && !values.json) process.stderr.write(`› using the product npm start is running (${embedded})\n`);
  const config = getConfig();
  const db = createDb({ url: requireSetting(config.database, "DATABASE_URL"), poolMax: 2 });
  const out: Output = values.json
    ? {
        result: (json) => process.stdout.write(`${JSON.stringify(json)}\n`),
        progress: () => undefined,
        table: (json) => process.stdout.write(`${JSON.stringify(json)}\n`),
      }
    : {
        result: (_json, lines) => process.stdout.write(`${lines.join("\n")}\n`),
        progress: (line) => process.stdout.write(`${line}\n`),
        table: (_json, lines) => process.stdout.write(`${lines.join("\n")}\n`),
      };
  try {
    return await run(command, values, { config, db, out, operator: { via: "cli" } }, args);
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (error instanceof Refusal) {
      process.stderr.write(`error: ${error.message} (${error.code})\n`);
      process.exit(error.kind === "invalid" ? 2 : 1);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    log.error({ err: error }, "org command failed");
    process.exit(1);
  },
);
