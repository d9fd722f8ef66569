/**
 * Organisations without SQL, on the real stack: an operator (admin of OPS_ORG "acme") creates two
 * organisations, one through the endpoint and one through the CLI as a child process; the first's
 * admin signs in, uploads, chats; then it is deleted through the endpoint, and nothing of it is
 * left: no row with its org_id in any table, no Redis key naming it, its people, sessions, turns
 * or documents, no job, no vector index. The other organisation is untouched and still answers.
 * Bad input is refused with a code, and the CLI deletes the second one, printing what it removed.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Queue } from "bullmq";
import { api, login, upload, waitFor } from "../../../harness/client";
import { stackSuite } from "../../../support/suite";
import { dropOrganisations } from "../../../support/organizations";
import { ask, signIn } from "../../../workers/tutor/helpers";
import { buildOrgVectorIndex, orgVectorIndexState } from "../../../../db/queries/org-vector-indexes";
import { tablesWithOrgId } from "../../../../db/queries/org-deletion";
import { runOrgCli } from "../../../ops/org-cli";
import { stackWorker } from "../../../reliability/helpers";
import { findActiveUsers } from "../../../../db/queries/users";

const OPERATOR_EMAIL = "admin@example.com";

describe("operator: organisations without SQL", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });
  const suffix = randomUUID().slice(0, 8);
  const created: string[] = [];
  let operator: string;
  after(() => dropOrganisations(stack.server.deps.db, created));

  before(async () => {
    operator = (await login(stack.baseUrl, OPERATOR_EMAIL)).token;
  });

  const db = () => stack.server.deps.db;
  const redis = () => stack.server.deps.redis;
  const allQueues = (): Queue[] => stack.workers.deps.producer.allQueues();

  async function rowsOf(orgId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of await tablesWithOrgId(db())) {
      const [row] = await db()(table).where({ org_id: orgId }).count<{ count: string }[]>("* as count");
      if (Number(row!.count) > 0) counts[table] = Number(row!.count);
    }
    return counts;
  }

  async function jobsOf(orgId: string): Promise<string[]> {
    const found: string[] = [];
    for (const queue of allQueues()) {
      const jobs = await queue.getJobs(["wait", "delayed", "prioritized", "waiting-children", "active", "completed", "failed"]);
      for (const job of jobs) if (job?.data?.orgId === orgId) found.push(`${queue.name}:${job.id}`);
    }
    return found;
  }

  async function keysNaming(ids: Set<string>): Promise<string[]> {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await redis().scan(cursor, "COUNT", 1000);
      cursor = next;
      keys.push(...batch.filter((key) => [...ids].some((id) => key.includes(id))));
    } while (cursor !== "0");
    return keys;
  }

  it("refuses everyone but the operator's admins, and bad bodies, with a code", async () => {
    expect((await api(stack.baseUrl, "GET", "/api/v1/ops/orgs")).status).to.equal(401);
    const employee = await login(stack.baseUrl, "employee@example.com");
    expect((await api(stack.baseUrl, "GET", "/api/v1/ops/orgs", { token: employee.token })).body.error.code).to.equal("FORBIDDEN");
    for (const body of [
      {},
      { name: "No admin" },
      { name: "X", admin: { email: "not-an-email" } },
      { name: "X", slug: "Bad Slug", admin: { email: `x-${suffix}@beta.example` } },
      { name: "X", admin: { email: `x-${suffix}@beta.example` }, extra: 1 },
      { name: "   ", admin: { email: `x-${suffix}@beta.example` } },
    ]) {
      const answer = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs", { token: operator, body });
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error.code).to.equal("VALIDATION_ERROR");
    }
    const [stored] = await db()("users").where("email", `x-${suffix}@beta.example`).count<{ count: string }[]>("* as count");
    expect(Number(stored!.count), "nothing stored for a refused body").to.equal(0);
  });

  it("creates organisations by endpoint and CLI, deletes one with everything it owns, and leaves the other answering", async () => {
    // --- by endpoint -----------------------------------------------------------------------
    const betaEmail = `ana-${suffix}@beta.example`;
    const posted = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs", {
      token: operator,
      body: { name: `Beta Logistics ${suffix}`, admin: { email: betaEmail, name: "Ana Beta" } },
    });
    expect(posted.status, JSON.stringify(posted.body)).to.equal(201);
    const beta = posted.body.organisation;
    created.push(beta.id);
    expect(beta.slug).to.equal(`beta-logistics-${suffix}`);
    const admin = await db()("users").where({ org_id: beta.id }).first("role", "provisioned_via", "email");
    expect(admin).to.deep.equal({ role: "admin", provisioned_via: "api", email: betaEmail });
    const audit = await db()("audit_log").where({ target_id: beta.id, action: "organization.created" }).first("org_id", "actor_id", "details");
    expect(audit.org_id, "audited in the operator's organisation").to.equal(stack.demo.orgId);
    expect(audit.actor_id).to.equal(stack.demo.adminId);
    expect(audit.details).to.include({ slug: beta.slug, via: "api" });

    const again = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs", {
      token: operator,
      body: { name: "Other", slug: beta.slug, admin: { email: `o-${suffix}@x.example` } },
    });
    expect([again.status, again.body.error.code]).to.deep.equal([409, "SLUG_TAKEN"]);
    const sameEmail = await api(stack.baseUrl, "POST", "/api/v1/ops/orgs", {
      token: operator,
      body: { name: `Other ${suffix}`, admin: { email: betaEmail.toUpperCase() } },
    });
    expect([sameEmail.status, sameEmail.body.error.code]).to.deep.equal([409, "EMAIL_TAKEN"]);

    // --- by CLI ------------------------------------------------------------------------------
    const gammaEmail = `gus-${suffix}@gamma.example`;
    const cli = await runOrgCli(stack, ["create", "--name", `Gamma Foods ${suffix}`, "--admin-email", gammaEmail, "--json"]);
    expect(cli.code, cli.stderr).to.equal(0);
    const gamma = JSON.parse(cli.stdout);
    created.push(gamma.id);
    expect(gamma.slug).to.equal(`gamma-foods-${suffix}`);
    expect((await db()("users").where({ org_id: gamma.id }).first("provisioned_via")).provisioned_via).to.equal("cli");

    // A new organisation's admin is not an operator.
    const betaAdmin = await signIn(stack, betaEmail);
    expect((await api(stack.baseUrl, "GET", "/api/v1/ops/orgs", { token: betaAdmin.token })).status).to.equal(403);
    const listed = await api(stack.baseUrl, "GET", "/api/v1/ops/orgs?limit=200", { token: operator });
    expect(listed.body.organisations.find((org: { id: string }) => org.id === beta.id)).to.include({ people: 1, documents: 0 });

    // --- Beta works: a document, a chat, a vector index, a queued job, keys in Redis ---------------
    const gammaAdmin = await signIn(stack, gammaEmail);
    const sent = await Promise.all(
      [betaAdmin, gammaAdmin].map((who, i) =>
        upload(stack.baseUrl, who.token, {
          name: `handbook-${i}.md`,
          bytes: Buffer.from(`# Returns handbook ${i}\n\nRefunds take five working days at ${suffix}.\n`),
        }),
      ),
    );
    for (const answer of sent) expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
    await Promise.all(
      sent.map((answer, i) =>
        waitFor(
          async () =>
            (await api(stack.baseUrl, "GET", `/api/v1/documents/${answer.body.document_id}`, { token: [betaAdmin, gammaAdmin][i]!.token })).body.status ===
            "COMPLETED",
          20_000,
          "the documents to be indexed",
        ),
      ),
    );
    const turn = await ask(stack, betaAdmin, "How long do refunds take?");
    expect(turn.done, JSON.stringify(turn.names)).to.not.equal(undefined);
    expect(await buildOrgVectorIndex(db(), beta.id, { memoryMb: 16 })).to.equal("built");
    await stack.workers.deps.producer.enqueue(
      "chat-summarise",
      { orgId: beta.id, sessionId: turn.sessionId, turnId: turn.turnId },
      { delay: 600_000, jobId: `${turn.sessionId}-summary-test` },
    );
    // A content-gap report: a job, then a cached report and its deduplication key, both naming the organisation.
    expect((await api(stack.baseUrl, "GET", "/api/v1/admin/insights/content-gaps", { token: betaAdmin.token })).status).to.be.oneOf([200, 202]);
    await waitFor(
      async () => (await keysNaming(new Set([beta.id]))).some((key) => key.includes(`content-gaps:${beta.id}`)),
      10_000,
      "the content-gap report to be cached",
    );
    const before = await rowsOf(beta.id);
    expect(before).to.include.keys("users", "documents", "document_files", "document_chunks", "chat_sessions", "chat_messages");
    const owned = new Set<string>([
      beta.id,
      betaAdmin.userId,
      turn.sessionId,
      turn.turnId,
      sent[0]!.body.document_id,
      ...(await db()("chat_messages").where({ org_id: beta.id }).distinct("turn_id")).map((row: { turn_id: string }) => row.turn_id),
    ]);
    expect(await keysNaming(owned), "the chat left keys in Redis").to.not.be.empty;
    expect(await jobsOf(beta.id)).to.not.be.empty;

    // --- deletion: refusals first ----------------------------------------------------------------
    const wrong = await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${beta.id}?confirm=${gamma.slug}`, { token: operator });
    expect([wrong.status, wrong.body.error.code]).to.deep.equal([409, "CONFIRMATION_MISMATCH"]);
    const none = await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${beta.id}`, { token: operator });
    expect(none.body.error.code).to.equal("CONFIRMATION_MISMATCH");
    const ops = await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${stack.demo.orgId}?confirm=acme`, { token: operator });
    expect([ops.status, ops.body.error.code]).to.deep.equal([409, "OPERATOR_ORGANISATION"]);
    expect((await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${randomUUID()}?confirm=x`, { token: operator })).status).to.equal(404);
    expect((await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${gamma.id}?confirm=${gamma.slug}`, { token: betaAdmin.token })).status).to.equal(403);
    expect((await api(stack.baseUrl, "GET", "/api/v1/me", { token: betaAdmin.token })).status, "nothing refused changed anything").to.equal(200);

    // --- deletion --------------------------------------------------------------------------------
    // The stack's deletion worker waits, so the lock-out is seen before anything is removed.
    const deletionWorker = stackWorker(stack, "org-delete");
    await deletionWorker.pause();
    try {
      const deleted = await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${beta.id}?confirm=${beta.slug}`, { token: operator });
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(202);
      expect(deleted.body.deletion).to.include({ org_id: beta.id, slug: beta.slug, status: "queued" });
      expect((await api(stack.baseUrl, "GET", "/api/v1/me", { token: betaAdmin.token })).status, "locked out at once").to.equal(401);
      expect((await api(stack.baseUrl, "POST", "/api/v1/auth/dev-login", { body: { email: betaEmail } })).status).to.equal(401);
      expect(await findActiveUsers(db(), [{ orgId: beta.id, userId: betaAdmin.userId }]), "the socket re-check drops them too").to.deep.equal([]);
      expect(await db()("users").where({ org_id: beta.id }).first("id"), "nothing removed yet").to.not.equal(undefined);
      const renamed = await api(stack.baseUrl, "PATCH", `/api/v1/ops/orgs/${beta.id}`, { token: operator, body: { name: "Too late" } });
      expect([renamed.status, renamed.body.error.code]).to.deep.equal([409, "ORGANISATION_DELETING"]);
      const twice = await api(stack.baseUrl, "DELETE", `/api/v1/ops/orgs/${beta.id}?confirm=${beta.slug}`, { token: operator });
      expect(twice.body.deletion.id, "asking again answers the same deletion").to.equal(deleted.body.deletion.id);
    } finally {
      deletionWorker.resume();
    }

    const finished = await waitFor(
      async () => {
        const progress = await api(stack.baseUrl, "GET", `/api/v1/ops/orgs/${beta.id}/deletion`, { token: operator });
        return ["completed", "failed"].includes(progress.body.deletion?.status) ? progress.body.deletion : undefined;
      },
      30_000,
      "the deletion to finish",
    );
    expect(finished.status, finished.error).to.equal("completed");
    const { removed } = finished;
    for (const [table, count] of Object.entries(before)) expect(removed[`rows.${table}`], `rows.${table}`).to.equal(count);
    expect(removed).to.include({ "rows.organizations": 1, files: 1, vector_indexes: 1 });
    expect(removed.file_bytes).to.be.greaterThan(0);
    expect(removed.jobs).to.be.at.least(2);
    expect(removed.redis_keys, "turn log, checkpoints, rate limits, the content-gap cache…").to.be.at.least(3);
    expect(removed.fair_clock_entries, "its places on the fair queues' clocks").to.be.at.least(1);

    // --- nothing of it is left -----------------------------------------------------------------
    expect(await rowsOf(beta.id), "rows with its org_id").to.deep.equal({});
    expect(await db()("organizations").where({ id: beta.id }).first()).to.equal(undefined);
    expect(await orgVectorIndexState(db(), beta.id)).to.equal("absent");
    await waitFor(async () => (await jobsOf(beta.id)).length === 0, 5_000, "its jobs (the deletion's own too) to be gone");
    expect(await keysNaming(owned), "keys naming it, its people, sessions, turns or documents").to.deep.equal([]);
    const deletionAudit = await db()("audit_log").where({ target_id: beta.id, action: "organization.deletion_requested" }).first("org_id", "actor_id");
    expect(deletionAudit).to.deep.equal({ org_id: stack.demo.orgId, actor_id: stack.demo.adminId });

    // --- the other one is untouched and still answers ------------------------------------------------
    expect(await rowsOf(gamma.id)).to.include({ users: 1, documents: 1, document_files: 1 });
    const gammaTurn = await ask(stack, gammaAdmin, "How long do refunds take?");
    expect(gammaTurn.done).to.not.equal(undefined);
    expect(gammaTurn.answer?.content).to.be.a("string").and.not.empty;

    // --- the CLI deletes the second, following the job to its end ---------------------------------
    const refused = await runOrgCli(stack, ["delete", "--org", gamma.slug]);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include(`--confirm ${gamma.slug}`);
    const byCli = await runOrgCli(stack, ["delete", "--org", gamma.slug, "--confirm", gamma.slug]);
    expect(byCli.code, byCli.stderr).to.equal(0);
    expect(byCli.stdout).to.match(new RegExp(`deleted ${gamma.slug} .*removed:`));
    expect(byCli.stdout).to.match(/rows\.chat_messages\s+2\b/);
    expect(byCli.stdout).to.match(/files\s+1\b/);
    expect(await rowsOf(gamma.id)).to.deep.equal({});
    gammaAdmin.socket.disconnect();
    betaAdmin.socket.disconnect();
  });
});
