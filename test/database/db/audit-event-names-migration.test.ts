/**
 * The migration that renames stored audit events to the vocabulary (20261205010000_audit_event_names):
 * rows recorded under an earlier name read under the new one, an admin action's item keeps its
 * tool in `details.tool`, rows already named right are left alone, and `down` gives the old names
 * back. Run inside one transaction on the lane's database, then rolled back.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import * as migration from "../../../db/migrations/20261205010000_audit_event_names";
import { AUDIT_EVENT_NAMES } from "../../../db/queries/audit-log";
import { databaseSuite } from "../../support/database";
import { unique } from "../../support/sso";

class RolledBack extends Error {}

const OLD = [
  "person.create",
  "user.jit_provision",
  "identity_provider.delete",
  "organization.delete",
  "integration.write",
  "ai_credits.add",
  "admin_action.deactivate_employee",
];

describe("migration 20261205010000_audit_event_names: stored events renamed", function () {
  const lane = databaseSuite(this);

  it("renames every earlier name into the vocabulary and back", async () => {
    const tag = unique();
    const read = (trx: Knex.Transaction) => trx("audit_log").where({ target_id: tag }).orderBy("action").select("action", "details");
    let up: Array<{ action: string; details: Record<string, unknown> | null }> = [];
    let down: typeof up = [];
    const org = await lane.build.buildOrg();
    await lane.db
      .transaction(async (trx: Knex.Transaction) => {
        const row = (action: string, details: Record<string, unknown> | null = null) => ({
          org_id: org.id,
          action,
          target_type: "user",
          target_id: tag,
          details: details && JSON.stringify(details),
        });
        await trx("audit_log").insert([
          ...OLD.map((action) => row(action, action.startsWith("admin_action.") ? { label: "Ana: deactivate" } : null)),
          row("retention.updated"),
        ]);
        await migration.up(trx);
        up = await read(trx);
        await migration.down(trx);
        down = await read(trx);
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    expect(up.map((r) => r.action).sort()).to.deep.equal(
      [
        "admin_action.item_applied",
        "ai_credits.added",
        "identity_provider.removed",
        "integration_key.write_requested",
        "organization.deletion_requested",
        "person.created",
        "person.provisioned",
        "retention.updated",
      ].sort(),
    );
    for (const { action } of up) expect(AUDIT_EVENT_NAMES as readonly string[], action).to.include(action);
    expect(up.find((r) => r.action === "admin_action.item_applied")?.details).to.deep.equal({ label: "Ana: deactivate", tool: "deactivate_employee" });
    expect(down.map((r) => r.action).sort()).to.deep.equal([...OLD, "retention.updated"].sort());
    expect(down.find((r) => r.action === "admin_action.deactivate_employee")?.details).to.deep.equal({ label: "Ana: deactivate" });
  });
});
