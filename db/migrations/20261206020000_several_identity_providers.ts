/**
 * An organisation may have several identity providers (staff on one, contractors on another), so
 * `identity_providers.org_id` is no longer unique; it keeps an index for the per-organisation reads.
 * Which provider signs in which email domain is kept apart by the command that saves providers
 * (commands/organisation-identity-provider.ts: a domain is listed by one enabled provider of an
 * organisation at most), under a lock on the organisation's row. Links, refresh families and
 * pending sign-ins already name their provider by id, so nothing else changes.
 *
 * `down` puts the one-provider rule back, and refuses while an organisation has more than one
 * (choosing which to drop would remove people's links).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("identity_providers", (t) => {
    t.dropUnique(["org_id"]);
    t.index(["org_id"], "identity_providers_org_id");
  });
}

export async function down(knex: Knex): Promise<void> {
  const several = await knex("identity_providers").select("org_id").groupBy("org_id").havingRaw("count(*) > 1").first();
  if (several)
    throw new Error(
      `organisation ${several.org_id} has several identity providers: remove all but one of each organisation's before going back to one provider per organisation`,
    );
  await knex.schema.alterTable("identity_providers", (t) => {
    t.dropIndex(["org_id"], "identity_providers_org_id");
    t.unique(["org_id"]);
  });
}
