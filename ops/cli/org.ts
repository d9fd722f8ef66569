/**
 * `npm run org -- <command>` (in the image: `node dist/ops/cli/org.js <command>`): onboarding and
 * removing organisations without SQL (the command line: org-args.ts; sign-in set-up, `idp` and
 * `domain`: org-sign-in.ts). Each command calls the same code as the operator endpoints
 * (commands/organisations.ts, commands/organisation-identity-provider.ts, commands/organisation-domains.ts,
 * commands/organisation-policy.ts: `policy`, org-policy.ts) and is audited the same
 * way, in OPS_ORG's organisation. Exit codes: 0 done, 1 refused or failed, 2 a usage mistake.
 */
import { ConfigError, getConfig, requireSetting } from "../../lib/config";
import { useEmbeddedConnection } from "../../lib/embedded-connection";
import { componentLogger } from "../../lib/logger";
import { Refusal } from "../../lib/refusal";
import { createDb } from "../../db/knex";
import { findOrgDeletion, type OrgDeletionRow } from "../../db/queries/org-deletion";
import { listOrganisations } from "../../db/queries/organizations";
import { createRedis, redisTargetOf } from "../../queues/connection";
import { queueLayoutOf } from "../../queues/layout";
import { JobProducer } from "../../queues/producer";
import { changeOrganisation, createOrganisation, organisationNamed, requestOrganisationDeletion } from "../../commands/organisations";
import { count, parseCommandLine, required, type Session, USAGE, UsageError, type Values } from "./org-args";
import { printDeletion, printOrganisations, type Output } from "./org-output";
import { runPolicyCommand } from "./org-policy";
import { runSignInCommand } from "./org-sign-in";

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
    case "policy show":
    case "policy set":
      return runPolicyCommand(command, args, { deps, operator, out }, (problem) => new UsageError(problem));
    default:
      return runSignInCommand(command, values, { ...session, log }, args);
  }
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
  const line = parseCommandLine(argv);
  if (line.help) {
    process.stdout.write(`${USAGE}\n`);
    return line.exitCode;
  }
  const { command, values, args } = line;
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
