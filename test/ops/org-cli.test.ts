/**
 * `npm run org` as an operator types it, as a real child process on the stack's database: list,
 * rename, quota (the override that used to be SQL-only), the identity provider with its secret
 * sealed and never printed, and the mistakes: usage errors exit 2 with the usage, refusals exit
 * 1 with the reason, neither with a stack trace.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { SecretBox } from "../../lib/secret-box";
import { stackSuite } from "../support/suite";
import { dropOrganisations } from "../support/organizations";
import { runOrgCli } from "./org-cli";

const SECRETS_KEY = "k".repeat(40);

describe("ops/cli/org.ts (npm run org)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  const suffix = randomUUID().slice(0, 8);
  const slug = `delta-${suffix}`;
  let orgId: string;
  after(() => dropOrganisations(stack.server.deps.db, [orgId]));
  const db = () => stack.server.deps.db;

  before(async () => {
    const created = await runOrgCli(stack, [
      "create",
      "--name",
      "Delta",
      "--slug",
      slug,
      "--admin-email",
      `dora-${suffix}@delta.example`,
      "--admin-name",
      "Dora",
    ]);
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.include(`created ${slug} (Delta)`);
    orgId = /id ([0-9a-f-]{36})/.exec(created.stdout)![1]!;
  });

  it("lists, renames and sets the quota, audited in the operator organisation", async () => {
    const [listed, renamed, quota] = await Promise.all([
      runOrgCli(stack, ["list", "--limit", "200", "--json"]),
      runOrgCli(stack, ["rename", "--org", slug, "--name", "Delta Freight"]),
      runOrgCli(stack, ["quota", "--org", orgId, "--bytes", "2097152"]),
    ]);
    expect(listed.code, listed.stderr).to.equal(0);
    const row = JSON.parse(listed.stdout).organisations.find((org: { slug: string }) => org.slug === slug);
    expect(row).to.include({ id: orgId, people: 1, documents: 0 });
    expect(renamed.code, renamed.stderr).to.equal(0);
    expect(quota.code, quota.stderr).to.equal(0);
    const org = await db()("organizations").where({ id: orgId }).first("name", "storage_quota_bytes");
    expect(org).to.deep.equal({ name: "Delta Freight", storage_quota_bytes: "2097152" });
    const back = await runOrgCli(stack, ["quota", "--org", slug, "--bytes", "default"]);
    expect(back.stdout).to.include("default (ORG_STORAGE_QUOTA_BYTES");
    expect((await db()("organizations").where({ id: orgId }).first("storage_quota_bytes")).storage_quota_bytes).to.equal(null);
    const audits = await db()("audit_log").where({ target_id: orgId }).orderBy("created_at").select("org_id", "actor_id", "action");
    expect(audits.map((a: { action: string }) => a.action)).to.include.members(["organization.created", "organization.renamed", "organization.updated"]);
    for (const audit of audits) expect(audit).to.include({ org_id: stack.demo.orgId, actor_id: null });
  });

  it("stores the identity provider with its secret sealed, never printing it, and refuses a secret without SECRETS_KEY", async () => {
    const args = [
      "idp",
      "set",
      "--org",
      slug,
      "--issuer",
      "https://login.delta.example/realms/delta/",
      "--client-id",
      "skillnet",
      "--display-name",
      "Delta SSO",
    ];
    const noKey = await runOrgCli(stack, [...args, "--client-secret", "s3cr3t-value"], { env: { SECRETS_KEY: undefined } });
    expect(noKey.code).to.equal(2);
    expect(noKey.stderr).to.include("SECRETS_KEY is not set");
    expect(noKey.stderr).to.not.match(/\n\s+at /);
    expect(await db()("identity_providers").where({ org_id: orgId }).first()).to.equal(undefined);

    const set = await runOrgCli(
      stack,
      [...args, "--client-secret", "-", "--domains", "Delta.example,delta.co", "--jit", "--admin-groups", "it-admins", "--groups-claim", "groups"],
      {
        env: { SECRETS_KEY },
        stdin: "s3cr3t-value\n",
      },
    );
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout + set.stderr).to.not.include("s3cr3t");
    const row = await db()("identity_providers").where({ org_id: orgId }).first();
    // Stored as typed: a token's `iss` must equal it exactly, and some issuers end in a slash.
    expect(row).to.include({ issuer: "https://login.delta.example/realms/delta/", client_id: "skillnet", display_name: "Delta SSO", jit_enabled: true });
    expect(row.allowed_domains).to.deep.equal(["delta.example", "delta.co"]);
    expect(row.claim_mapping).to.deep.equal({ groups: "groups", admin_groups: ["it-admins"] });
    expect(row.client_secret_encrypted).to.not.include("s3cr3t");
    expect(new SecretBox(SECRETS_KEY).open(row.client_secret_encrypted)).to.equal("s3cr3t-value");
    // The operator typed the domains: they count as approved by the operator (onboarding needs no TXT record).
    const domains = await db()("organisation_domains").where({ org_id: orgId }).orderBy("domain").select("domain", "status", "method");
    expect(domains).to.deep.equal([
      { domain: "delta.co", status: "verified", method: "operator" },
      { domain: "delta.example", status: "verified", method: "operator" },
    ]);

    const shown = await runOrgCli(stack, ["idp", "show", "--org", slug, "--json"]);
    expect(JSON.parse(shown.stdout)).to.include({ display_name: "Delta SSO", has_client_secret: true });
    expect(shown.stdout).to.not.include(row.client_secret_encrypted);
    // The stored secret belongs to that issuer and client: moving either needs it again or --clear-client-secret (F8).
    const moved = [...args.slice(0, 5), "https://attacker.example/realms/delta", ...args.slice(6)];
    const kept = await runOrgCli(stack, moved, { env: { SECRETS_KEY } });
    expect(kept.code).to.equal(1);
    expect(kept.stderr).to.include("CLIENT_SECRET_REQUIRED");
    expect(await db()("identity_providers").where({ org_id: orgId }).first()).to.deep.equal(row);
    const cleared = await runOrgCli(stack, [...moved, "--clear-client-secret"], { env: { SECRETS_KEY } });
    expect(cleared.code, cleared.stderr).to.equal(0);
    expect(await db()("identity_providers").where({ org_id: orgId }).first()).to.include({
      issuer: "https://attacker.example/realms/delta",
      client_secret_encrypted: null,
    });
    // One command for the CLI and the API: audited in the organisation's own log, as the CLI (no person).
    const audits = await db()("audit_log").where({ org_id: orgId, target_id: row.id }).orderBy("created_at").select("action", "actor_id", "details");
    expect(audits.map((a: { action: string }) => a.action)).to.deep.equal(["identity_provider.created", "identity_provider.updated"]);
    for (const audit of audits) expect(audit).to.deep.include({ actor_id: null, details: { via: "cli" } });

    const removed = await runOrgCli(stack, ["idp", "remove", "--org", slug]);
    expect(removed.stdout).to.include("identity provider removed");
    expect(await db()("identity_providers").where({ org_id: orgId }).first()).to.equal(undefined);
  });

  it("approves a domain for an organisation (domain approve), never a public mail domain, and lists them (domain list)", async () => {
    const domain = `approved-${suffix}.example`;
    const approved = await runOrgCli(stack, ["domain", "approve", slug, domain.toUpperCase()]);
    expect(approved.code, approved.stderr).to.equal(0);
    expect(approved.stdout).to.include(`${domain} verified (approved by the operator)`);
    expect(await db()("organisation_domains").where({ org_id: orgId, domain }).first("status", "method", "verified_by")).to.deep.equal({
      status: "verified",
      method: "operator",
      verified_by: null,
    });
    const audit = await db()("audit_log")
      .where({ action: "organisation_domain.approved", target_id: orgId })
      .whereRaw("after->>'domain' = ?", [domain])
      .first();
    expect(audit).to.include({ org_id: stack.demo.orgId, actor_id: null });
    const [publicDomain, missing, listed] = await Promise.all([
      runOrgCli(stack, ["domain", "approve", slug, "gmail.com"]),
      runOrgCli(stack, ["domain", "approve", slug]),
      runOrgCli(stack, ["domain", "list", slug]),
    ]);
    expect([publicDomain.code, publicDomain.stderr]).to.deep.equal([
      1,
      "error: gmail.com is a public mail service, not a company's domain; it cannot belong to an organisation. (PUBLIC_EMAIL_DOMAIN)\n",
    ]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('"domain approve" takes 2 argument(s)');
    expect(listed.stdout).to.include(`${domain}: verified (operator)`);
  });

  it("answers mistakes with a reason and an exit code, never a stack trace", async () => {
    const cases: Array<{ args: string[]; code: number; says: RegExp }> = [
      { args: [], code: 2, says: /Usage: npm run org/ },
      { args: ["frobnicate"], code: 2, says: /unknown command "frobnicate"/ },
      { args: ["create", "--name", "No admin"], code: 2, says: /--admin-email is required/ },
      { args: ["create", "--name", "X", "--admin-email", "x@x.example", "--bogus"], code: 2, says: /Unknown option '--bogus'/ },
      { args: ["rename", "--org", slug, "--bytes", "5"], code: 2, says: /--bytes does not apply to "rename"/ },
      { args: ["quota", "--org", slug, "--bytes", "lots"], code: 2, says: /--bytes takes a number/ },
      { args: ["create", "--name", "Dup", "--slug", slug, "--admin-email", `z-${suffix}@x.example`], code: 1, says: /already exists\. \(SLUG_TAKEN\)/ },
      { args: ["rename", "--org", `nobody-${suffix}`, "--name", "X"], code: 1, says: /not found \(NOT_FOUND\)/ },
      { args: ["delete", "--org", "acme", "--confirm", "acme"], code: 1, says: /operator organisation \(OPS_ORG\).*\(OPERATOR_ORGANISATION\)/ },
      { args: ["delete", "--org", slug, "--confirm", "delta"], code: 1, says: /confirm with its slug.*\(CONFIRMATION_MISMATCH\)/ },
    ];
    const runs = await Promise.all(cases.map((c) => runOrgCli(stack, c.args)));
    runs.forEach((run, i) => {
      const { args, code, says } = cases[i]!;
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).to.equal(code);
      expect(run.stdout + run.stderr, args.join(" ")).to.match(says);
      expect(run.stderr, args.join(" ")).to.not.match(/\n\s+at /);
    });
    expect((await db()("organizations").where({ id: orgId }).first("deleting_since")).deleting_since, "a refused delete changes nothing").to.equal(null);
  });
});
