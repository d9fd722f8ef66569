/**
 * The audit vocabulary and its one writer: every name is `<aggregate>.<past-tense verb>` and
 * listed once; nothing but db/queries/audit-log.ts inserts into `audit_log`; and a command
 * records exactly one event in its own transaction — none when it is refused or fails. The
 * document, chat-session and admin-action commands each record theirs once per change.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { changeDocumentAccess } from "../../../commands/change-document-access";
import { deleteChatSession } from "../../../commands/delete-chat-session";
import { deleteOrgDocument } from "../../../commands/delete-document";
import { updatePerson } from "../../../commands/manage-people";
import { putSourcedDocument } from "../../../commands/put-sourced-document";
import { renameDocumentSource } from "../../../commands/rename-sourced-document";
import { resumeAction } from "../../../commands/resume-action";
import { stopAction } from "../../../commands/stop-action";
import { uploadDocument } from "../../../commands/upload-document";
import { saveOrganisationIdentityProvider } from "../../../commands/organisation-identity-provider";
import { withTransaction } from "../../../commands/transaction";
import { AUDIT_EVENT_NAMES, recordAudit } from "../../../db/queries/audit-log";
import { updatePersonFields } from "../../../db/queries/people-writes";
import { Refusal } from "../../../lib/refusal";
import { sourceFilesUnder } from "../../../scripts/lint/source-files";
import { adminSession, commandSuite, freshPerson, pendingDeactivation } from "./helpers";

describe("audit events: one vocabulary, one writer, one event per command", function () {
  const lane = commandSuite(this);
  const db = () => lane.db;
  const rowsOf = async (targetId: string) =>
    db()("audit_log").where({ org_id: lane.orgId, target_id: targetId }).orderBy("created_at").select("action", "before", "after");

  it("names each event once, as <aggregate>.<past-tense verb>", () => {
    expect(new Set(AUDIT_EVENT_NAMES).size).to.equal(AUDIT_EVENT_NAMES.length);
    for (const name of AUDIT_EVENT_NAMES) expect(name, name).to.match(/^[a-z_]+(\.[a-z_]+)*\.[a-z_]*ed$/);
    // Names used before the vocabulary are gone (renamed by migration 20261205010000).
    for (const old of ["person.create", "identity_provider.update", "user.jit_provision", "integration.write", "ai_allowance.set"])
      expect(AUDIT_EVENT_NAMES as readonly string[]).not.to.include(old);
  });

  it("has one writer: no module but db/queries/audit-log.ts inserts into audit_log", () => {
    const root = process.cwd();
    const writers = sourceFilesUnder(root, ["db", "commands", "server", "workers", "ops", "queues", "lib"])
      .filter((file) => !file.startsWith("db/migrations/"))
      .filter((file) => /\(\s*["']audit_log["']\s*\)\s*\.insert|into\s+audit_log/i.test(readFileSync(join(root, file), "utf8")));
    expect(writers).to.deep.equal(["db/queries/audit-log.ts"]);
  });

  it("records exactly one event for a people update, in its transaction, with what changed", async () => {
    const admin = await freshPerson(lane, "admin");
    const person = await freshPerson(lane);
    const result = await updatePerson(lane.deps, {
      orgId: lane.orgId,
      actorId: admin.id,
      personId: person.id,
      update: { name: "Renamed Once", is_active: false },
    });
    expect(result).to.deep.equal({ changed: true });
    const rows = await rowsOf(person.id);
    expect(rows.map((row) => row.action)).to.deep.equal(["person.deactivated"]);
    expect(rows[0]!.before).to.deep.equal({ name: person.name, is_active: true });
    expect(rows[0]!.after).to.deep.equal({ name: "Renamed Once", is_active: false });
    // Nothing to change: nothing recorded.
    await updatePerson(lane.deps, { orgId: lane.orgId, actorId: admin.id, personId: person.id, update: { name: "Renamed Once" } });
    expect(await rowsOf(person.id)).to.have.length(1);
  });

  it("records one event per document command: upload, new version, access change, rename, delete", async () => {
    const admin = await freshPerson(lane, "admin");
    const deps = lane.deps;
    const defaultQuotaBytes = lane.config.organisations.ORG_STORAGE_QUOTA_BYTES;
    const person = { type: "person" as const, id: admin.id };
    const key = { type: "integration_key" as const, id: randomUUID(), personId: null, name: "sync", hint: "skn_…abcd" };
    const bytes = (text: string) => Buffer.from(`Audit ${randomUUID()}: ${text}`);
    const uploaded = await uploadDocument(
      deps,
      { orgId: lane.orgId, userId: admin.id },
      {
        filename: "audit.txt",
        format: "txt",
        bytes: bytes("uploaded"),
        title: undefined,
        courseId: undefined,
        access: {},
        defaultQuotaBytes,
      },
    );
    const sourced = {
      orgId: lane.orgId,
      actor: key,
      uploaderId: admin.id,
      externalId: `audit/${randomUUID()}.txt`,
      filename: "s.txt",
      format: "txt" as const,
      title: undefined,
      defaultQuotaBytes,
      admitReindex: async () => undefined,
    };
    const created = await putSourcedDocument(deps, { ...sourced, bytes: bytes("first") });
    try {
      await putSourcedDocument(deps, { ...sourced, bytes: bytes("second") });
      await changeDocumentAccess(deps, { orgId: lane.orgId, documentId: uploaded.document.id, actorId: admin.id, access: { restricted_departments: ["QA"] } });
      await renameDocumentSource(deps, { orgId: lane.orgId, from: sourced.externalId, to: `${sourced.externalId}.moved`, actor: key });
      const gone = await renameDocumentSource(deps, { orgId: lane.orgId, from: sourced.externalId, to: "elsewhere", actor: key }).catch((e: unknown) => e);
      expect(gone).to.be.instanceOf(Refusal).and.to.include({ code: "NOT_FOUND" });
      await deleteOrgDocument(deps, { orgId: lane.orgId, documentId: uploaded.document.id, actor: person, force: false });
      const missing = await deleteOrgDocument(deps, { orgId: lane.orgId, documentId: uploaded.document.id, actor: person, force: false }).catch(
        (e: unknown) => e,
      );
      expect(missing).to.be.instanceOf(Refusal).and.to.include({ code: "NOT_FOUND" });

      expect((await rowsOf(uploaded.document.id)).map((row) => row.action)).to.deep.equal(["document.uploaded", "document.access_changed", "document.deleted"]);
      const access = (await rowsOf(uploaded.document.id))[1]!;
      expect(access.before).to.deep.equal({ restricted_departments: null });
      expect(access.after).to.deep.equal({ restricted_departments: ["QA"] });
      const trail = await db()("audit_log")
        .where({ org_id: lane.orgId, target_id: created.document.id })
        .orderBy("created_at")
        .select("action", "actor_id", "details");
      expect(trail.map((row) => row.action)).to.deep.equal(["document.uploaded", "document.version_uploaded", "document.renamed"]);
      expect(trail.every((row) => row.actor_id === null && row.details.actor.id === key.id)).to.equal(true);
    } finally {
      await db()("documents").whereIn("id", [uploaded.document.id, created.document.id]).delete();
    }
  });

  it("records one event when a person deletes their chat session, none when it is not theirs", async () => {
    const owner = await freshPerson(lane);
    const other = await freshPerson(lane);
    const { sessionId } = await adminSession(lane, owner.id);
    const refused = await deleteChatSession(lane.deps, { orgId: lane.orgId, userId: other.id }, sessionId).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(Refusal).and.to.include({ code: "NOT_FOUND" });
    await deleteChatSession(lane.deps, { orgId: lane.orgId, userId: owner.id }, sessionId);
    const rows = await db()("audit_log").where({ org_id: lane.orgId, target_id: sessionId }).select("action", "actor_id");
    expect(rows).to.deep.equal([{ action: "chat_session.deleted", actor_id: owner.id }]);
  });

  it("records one event for an admin action's proposal, stop and resume; none for a refused stop", async () => {
    const admin = await freshPerson(lane, "admin");
    const action = await pendingDeactivation(lane, admin.id, await freshPerson(lane));
    const deps = lane.deps;
    const refused = await stopAction(deps, { orgId: lane.orgId, actionId: action.id, stoppedBy: admin.id });
    expect(refused.kind).to.equal("refused");
    // Confirmed, with no run queued yet: stoppable without a worker racing the stop.
    await db()("admin_actions").where({ id: action.id }).update({ status: "confirmed" });
    expect((await stopAction(deps, { orgId: lane.orgId, actionId: action.id, stoppedBy: admin.id })).kind).to.equal("stopped");
    expect((await resumeAction(deps, { orgId: lane.orgId, actionId: action.id, resumerId: admin.id })).kind).to.equal("resumed");
    // The resumed run is queued; the database lane runs no workers, so it stays queued.
    const rows = await db()("audit_log").where({ org_id: lane.orgId, target_id: action.id }).orderBy("created_at").select("action", "actor_id");
    expect(rows).to.deep.equal([
      { action: "admin_action.proposed", actor_id: admin.id },
      { action: "admin_action.stopped", actor_id: admin.id },
      { action: "admin_action.resumed", actor_id: admin.id },
    ]);
  });

  it("records nothing for a refused command", async () => {
    const admin = await freshPerson(lane, "admin");
    const refused = await updatePerson(lane.deps, { orgId: lane.orgId, actorId: admin.id, personId: admin.id, update: { role: "employee" } }).catch(
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(Refusal).and.to.include({ code: "SELF_DEMOTION" });
    expect(await rowsOf(admin.id)).to.deep.equal([]);

    const invalid = await saveOrganisationIdentityProvider(
      { db: db(), log: lane.deps.log, config: { auth: { SECRETS_KEY: undefined } } },
      { via: "cli", userId: null },
      lane.orgId,
      { display_name: "", issuer: "ftp://nowhere", client_id: "x", allowed_domains: ["not a domain"], claim_mapping: {}, jit_enabled: false, enabled: true },
    ).catch((e: unknown) => e);
    expect(invalid).to.be.instanceOf(Refusal).and.to.include({ code: "VALIDATION_ERROR" });
  });

  it("rolls the change back with its event: a command whose event cannot be recorded changes nothing", async () => {
    const person = await freshPerson(lane);
    const failed = await withTransaction(lane.deps, async (trx) => {
      await updatePersonFields(trx, lane.orgId, person.id, { name: "Never Committed" });
      // An event naming no organisation violates the log's foreign key: the whole command fails.
      await recordAudit(trx, {
        name: "person.updated",
        orgId: "00000000-0000-0000-0000-000000000000",
        actor: { type: "system" },
        target: { type: "user", id: person.id },
      });
    }).catch((e: unknown) => e);
    expect(failed).to.be.instanceOf(Error);
    expect(await db()("users").where({ id: person.id }).first("name")).to.deep.equal({ name: person.name });
    expect(await rowsOf(person.id)).to.deep.equal([]);
  });
});
