/**
 * An operator changes an organisation's policy (lib/organisation-policy.ts): the ops API
 * (`PUT /api/v1/ops/orgs/:id/policy`) and `npm run org -- policy set` call this one command. It
 * locks the organisation, applies the change to what is stored, and records one
 * `organization.policy_changed` event with the stored limits before and after, in one transaction,
 * in the operator's organisation (the CLI's: OPS_ORG's, else the changed one), as the other
 * operator changes are.
 */
import type { Config } from "../lib/config";
import { applyPolicyChange, effectivePolicy, type OrganisationPolicy, type PolicyLimitName, type StoredPolicy } from "../lib/organisation-policy";
import { Refusal } from "../lib/refusal";
import { recordAudit, type AuditActor } from "../db/queries/audit-log";
import { lockOrganisationForPolicy, saveOrganisationPolicy, storedOrganisationPolicy } from "../db/queries/organisation-policy";
import { organisationIdOfSlug } from "../db/queries/organizations";
import { organisationNamed, type Operator } from "./organisations";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

export type PolicyDeps = Pick<CommandDeps, "db" | "log"> & { config: Pick<Config, "server" | "rateLimits" | "admin"> };

export interface PolicyView {
  orgId: string;
  slug: string;
  /** What the operator set. */
  stored: StoredPolicy;
  /** What applies: the stored limits over the defaults. */
  effective: OrganisationPolicy;
}

/** The organisation's policy as stored and as it applies. */
export async function showOrganisationPolicy(deps: Pick<PolicyDeps, "db" | "config">, idOrSlug: string): Promise<PolicyView> {
  const org = await organisationNamed(deps, idOrSlug);
  const stored = await storedOrganisationPolicy(deps.db, org.id);
  return { orgId: org.id, slug: org.slug, stored, effective: effectivePolicy(deps.config, stored) };
}

export async function changeOrganisationPolicy(
  deps: PolicyDeps,
  operator: Operator,
  idOrSlug: string,
  change: Partial<Record<PolicyLimitName, number | null>>,
): Promise<PolicyView> {
  const org = await organisationNamed(deps, idOrSlug);
  const opsOrgId = operator.via === "cli" && deps.config.server.OPS_ORG ? await organisationIdOfSlug(deps.db, deps.config.server.OPS_ORG) : undefined;
  const stored = await withTransaction(deps, async (trx) => {
    const locked = await lockOrganisationForPolicy(trx, org.id);
    if (!locked) throw Refusal.notFound(`Organisation "${idOrSlug}"`);
    if (locked.deleting) {
      throw new Refusal("conflict", "ORGANISATION_DELETING", `The organisation "${org.slug}" is being deleted; it can no longer be changed.`, {
        slug: org.slug,
      });
    }
    const before = await storedOrganisationPolicy(trx, org.id);
    const after = applyPolicyChange(before, change);
    await saveOrganisationPolicy(trx, org.id, after);
    const actor: AuditActor = operator.via === "api" ? { type: "person", id: operator.userId } : { type: "operator" };
    await recordAudit(trx, {
      name: "organization.policy_changed",
      orgId: operator.via === "api" ? operator.orgId : (opsOrgId ?? org.id),
      actor,
      target: { type: "organization", id: org.id },
      before,
      after,
      details: { via: operator.via, slug: org.slug },
    });
    return after;
  });
  deps.log.info({ orgId: org.id, via: operator.via }, "organisation policy changed");
  return { orgId: org.id, slug: org.slug, stored, effective: effectivePolicy(deps.config, stored) };
}
