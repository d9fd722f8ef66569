/**
 * The audit log's event names become one vocabulary (db/queries/audit-log.ts,
 * AUDIT_EVENT_NAMES: `<aggregate>.<past-tense verb>`): rows recorded under an earlier name are
 * renamed, so a reader filtering on a name finds the old rows with the new. An admin action's
 * item was recorded as `admin_action.<tool>`; it is `admin_action.item_applied` with the tool in
 * `details.tool`.
 */
import type { Knex } from "knex";

const RENAMED: ReadonlyArray<readonly [string, string]> = [
  ["person.create", "person.created"],
  ["person.update", "person.updated"],
  ["person.deactivate", "person.deactivated"],
  ["person.reactivate", "person.reactivated"],
  ["user.jit_provision", "person.provisioned"],
  ["user.role_from_identity_provider", "person.role_synced"],
  ["identity_provider.create", "identity_provider.created"],
  ["identity_provider.update", "identity_provider.updated"],
  ["identity_provider.delete", "identity_provider.removed"],
  ["organization.create", "organization.created"],
  ["organization.rename", "organization.renamed"],
  ["organization.update", "organization.updated"],
  ["organization.delete", "organization.deletion_requested"],
  ["integration.write", "integration_key.write_requested"],
  ["ai_allowance.set", "ai_allowance.updated"],
  ["ai_credits.add", "ai_credits.added"],
];

const ITEM_APPLIED = "admin_action.item_applied";

export async function up(knex: Knex): Promise<void> {
  for (const [before, after] of RENAMED) await knex("audit_log").where({ action: before }).update({ action: after });
  await knex.raw(
    `UPDATE audit_log SET action = ?, details = coalesce(details, '{}'::jsonb) || jsonb_build_object('tool', substr(action, length('admin_action.') + 1))
      WHERE action LIKE 'admin\\_action.%' AND action <> ?`,
    [ITEM_APPLIED, ITEM_APPLIED],
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const [before, after] of RENAMED) await knex("audit_log").where({ action: after }).update({ action: before });
  await knex.raw(`UPDATE audit_log SET action = 'admin_action.' || (details->>'tool'), details = details - 'tool' WHERE action = ? AND details \\? 'tool'`, [
    ITEM_APPLIED,
  ]);
}
