/**
 * An organisation's stored policy (`org_policies`): the limits its operator set. Read with the
 * defaults filled in by `organisationPolicy` (one primary-key read, done where a limit applies:
 * a chat message, an upload, an admin turn, so an operator's change applies to the next request).
 */
import type { Knex } from "knex";
import type { Config } from "../../lib/config";
import { effectivePolicy, type OrganisationPolicy, type StoredPolicy, storedPolicySchema } from "../../lib/organisation-policy";
import type { Db } from "../knex";

type Conn = Db | Knex.Transaction;

/** The limits the operator set for the organisation (none: `{}`); a row that fails the schema counts as none set. */
export async function storedOrganisationPolicy(db: Conn, orgId: string): Promise<StoredPolicy> {
  const row = (await db("org_policies").where({ org_id: orgId }).first("limits")) as { limits: unknown } | undefined;
  const parsed = storedPolicySchema.safeParse(row?.limits ?? {});
  return parsed.success ? parsed.data : {};
}

/** Every limit as it applies to the organisation: the stored ones over the configuration's defaults. */
export async function organisationPolicy(db: Conn, config: Pick<Config, "rateLimits" | "admin">, orgId: string): Promise<OrganisationPolicy> {
  return effectivePolicy(config, await storedOrganisationPolicy(db, orgId));
}

/** Replaces the organisation's stored limits, in the caller's transaction. */
export async function saveOrganisationPolicy(trx: Knex.Transaction, orgId: string, limits: StoredPolicy): Promise<void> {
  await trx("org_policies")
    .insert({ org_id: orgId, limits: JSON.stringify(limits), updated_at: trx.fn.now() })
    .onConflict("org_id")
    .merge(["limits", "updated_at"]);
}

/**
 * Locks the organisation's row for a policy change (two operators' changes apply one after the
 * other, each on the other's result) and says whether it is being deleted; undefined: no such organisation.
 */
export async function lockOrganisationForPolicy(trx: Knex.Transaction, orgId: string): Promise<{ deleting: boolean } | undefined> {
  const row = (await trx("organizations").where({ id: orgId }).forUpdate().first("deleting_since")) as { deleting_since: Date | null } | undefined;
  return row ? { deleting: row.deleting_since !== null } : undefined;
}
