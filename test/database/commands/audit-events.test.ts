/**
 * The audit vocabulary and its one writer: every name is `<aggregate>.<past-tense verb>` and
 * listed once; nothing but db/queries/audit-log.ts inserts into `audit_log`; and a command
 * records exactly one event in its own transaction — none when it is refused or fails.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { updatePerson } from "../../../commands/manage-people";
import { saveOrganisationIdentityProvider } from "../../../commands/organisation-identity-provider";
import { withTransaction } from "../../../commands/transaction";
import { AUDIT_EVENT_NAMES, recordAudit } from "../../../db/queries/audit-log";
import { updatePersonFields } from "../../../db/queries/people-writes";
import { Refusal } from "../../../lib/refusal";
import { sourceFilesUnder } from "../../../scripts/lint/source-files";
import { commandSuite, freshPerson } from "./helpers";


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
    const result = await updatePerson(lane.deps, { orgId: lane.orgId, actorId: admin.id, personId: person.id, update: { name: "Renamed Once", is_active: false } });
    expect(result).to.deep.equal({ changed: true });
    const rows = await rowsOf(person.id);
    expect(rows.map((row) => row.action)).to.deep.equal(["person.deactivated"]);
    expect(rows[0]!.before).to.deep.equal({ name: person.name, is_active: true });
    expect(rows[0]!.after).to.deep.equal({ name: "Renamed Once", is_active: false });
    // Nothing to change: nothing recorded.
    await updatePerson(lane.deps, { orgId: lane.orgId, actorId: admin.id, personId: person.id, update: { name: "Renamed Once" } });
    expect(await rowsOf(person.id)).to.have.length(1);
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
