/**
 * An organisation's policy (lib/organisation-policy.ts): the limits an operator set for it, as
 * one JSON object of named numbers (validated by the application on the way in and out), beside
 * `ai_allowances` and `org_retention`. No row, or a name missing from it: the product's default.
 * Who changed it is in `audit_log` (`organization.policy_changed`), so the row holds no person.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("org_policies", (t) => {
    t.uuid("org_id").primary().references("id").inTable("organizations").onDelete("CASCADE");
    t.jsonb("limits").notNullable().defaultTo("{}");
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("jsonb_typeof(limits) = 'object'", {}, "org_policies_limits_object");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("org_policies");
}
