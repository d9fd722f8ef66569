/**
 * The operator's changes to organisations, whoever makes them: the CLI (`ops/cli/org.ts`) and
 * the operator endpoints (`/api/v1/ops/orgs`) call these. Create an organisation with its first
 * admin, rename it or set its storage quota, and ask for its deletion (queued on `org-delete`).
 *
 * Every change is audited in the operator's own organisation (the endpoint's caller's; the CLI's
 * is OPS_ORG's), in the same transaction as the change: the row outlives the organisation if
 * it is deleted later. The CLI acts without a person (`actor_id` null, `details.via` "cli").
 */
import type { Config } from "../lib/config";
import { Refusal } from "../lib/refusal";
import { SLUG_PATTERN, slugFromName } from "../lib/organisation-slug";
import { openOrgDeletion, type OrgDeletionRow } from "../db/queries/org-deletion";
import { recordAudit, type AuditEventName } from "../db/queries/audit-log";
import { failOperation } from "../db/queries/operations";
import {
  createConflictOf,
  insertFirstAdmin,
  insertOrganisation,
  lockLiveOrganisation,
  updateOrganisationRow,
  type OrganisationChange,
} from "../db/queries/organization-writes";
import { findOrganisation, organisationIdOfSlug, type OrganisationRow } from "../db/queries/organizations";
import type { CommandDeps } from "./deps";
import { type Transaction, withTransaction } from "./transaction";

/** Who makes the change: an operator signed in to the API, or the CLI on the operator's machine. */
export type Operator = { via: "api"; userId: string; orgId: string } | { via: "cli" };

export type OrganisationDeps = Pick<CommandDeps, "db" | "log"> & { config: Pick<Config, "server"> };
/** A deletion also queues its job. */
type DeletionDeps = OrganisationDeps & Pick<CommandDeps, "producer">;

/** Where an operator's change is audited: their organisation; for the CLI, OPS_ORG's, else the changed one (never one being deleted). */
async function auditOrgOf(deps: OrganisationDeps, operator: Operator, target: { orgId: string; deleting: boolean }): Promise<string | undefined> {
  if (operator.via === "api") return operator.orgId;
  const ops = deps.config.server.OPS_ORG ? await organisationIdOfSlug(deps.db, deps.config.server.OPS_ORG) : undefined;
  if (ops && !(target.deleting && ops === target.orgId)) return ops;
  return target.deleting ? undefined : target.orgId;
}

/** The one audit row of an operator's change: in the operator's organisation, `target_id` the organisation changed, `details.slug` and `.via`. */
function auditor(deps: OrganisationDeps, operator: Operator, name: AuditEventName, target: { deleting: boolean }) {
  return async (trx: Transaction, entry: { orgId: string; slug: string; details?: Record<string, unknown>; before?: unknown; after?: unknown }) => {
    const auditOrgId = await auditOrgOf(deps, operator, { orgId: entry.orgId, deleting: target.deleting });
    if (!auditOrgId) return;
    await recordOperatorChange(trx, operator, { name, auditOrgId, ...entry });
  };
}

/** An operator's change of an organisation, recorded where the operator's changes are kept (it outlives the organisation changed). */
export async function recordOperatorChange(
  trx: Transaction,
  operator: Operator,
  entry: { name: AuditEventName; auditOrgId: string; orgId: string; slug: string; details?: Record<string, unknown>; before?: unknown; after?: unknown },
): Promise<void> {
  await recordAudit(trx, {
    name: entry.name,
    orgId: entry.auditOrgId,
    actor: operator.via === "api" ? { type: "person", id: operator.userId } : { type: "operator" },
    target: { type: "organization", id: entry.orgId },
    details: { slug: entry.slug, via: operator.via, ...entry.details },
    before: entry.before,
    after: entry.after,
  });
}

/** The organisation an operator names (id or slug), or `404 NOT_FOUND`. */
export async function organisationNamed(deps: Pick<OrganisationDeps, "db">, idOrSlug: string): Promise<OrganisationRow> {
  const org = await findOrganisation(deps.db, idOrSlug.trim());
  if (!org) throw Refusal.notFound(`Organisation "${idOrSlug}"`);
  return org;
}

export interface OrganisationRequest {
  name: string;
  slug?: string;
  admin: { email: string; name?: string };
}

export async function createOrganisation(
  deps: OrganisationDeps,
  operator: Operator,
  request: OrganisationRequest,
): Promise<{ org: OrganisationRow; adminId: string }> {
  const name = request.name.trim();
  const slug = request.slug?.trim() || slugFromName(name);
  if (!SLUG_PATTERN.test(slug))
    throw new Refusal(
      "invalid",
      "VALIDATION_ERROR",
      request.slug
        ? `"${slug}" is not a usable slug: 2-63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit.`
        : `No slug can be made from the name "${name}"; give one (2-63 lower-case letters, digits and hyphens).`,
    );
  const email = request.admin.email.trim().toLowerCase();
  const adminName = request.admin.name?.trim() || email.split("@")[0]!;
  const audit = auditor(deps, operator, "organization.created", { deleting: false });
  let created: { org: OrganisationRow; adminId: string };
  try {
    // The organisation and its first admin in one transaction, so neither exists without the other.
    created = await withTransaction(deps, async (trx) => {
      const org = await insertOrganisation(trx, { name, slug });
      const adminId = await insertFirstAdmin(trx, org.id, { email, name: adminName, provisionedVia: operator.via });
      await audit(trx, { orgId: org.id, slug, after: { name, slug, admin: { id: adminId, email } } });
      return { org, adminId };
    });
  } catch (error) {
    const conflict = createConflictOf(error);
    if (conflict === "slug") throw new Refusal("conflict", "SLUG_TAKEN", `An organisation with the slug "${slug}" already exists.`, { slug });
    if (conflict === "email")
      throw new Refusal("conflict", "EMAIL_TAKEN", `Someone with the email ${email} already has an account (emails are unique across organisations).`, {
        email,
      });
    throw error;
  }
  deps.log.info({ orgId: created.org.id, slug, via: operator.via }, "organisation created");
  return created;
}

/** Renames an organisation and/or sets its storage quota (null: back to ORG_STORAGE_QUOTA_BYTES). */
export async function changeOrganisation(deps: OrganisationDeps, operator: Operator, idOrSlug: string, change: OrganisationChange): Promise<OrganisationRow> {
  const org = await organisationNamed(deps, idOrSlug);
  if (org.deleting_since) throw deletingRefusal(org);
  const name = change.name !== undefined && change.storage_quota_bytes === undefined ? "organization.renamed" : "organization.updated";
  const audit = auditor(deps, operator, name, { deleting: false });
  const updated = await withTransaction(deps, async (trx) => {
    const before = await lockLiveOrganisation(trx, org.id);
    if (!before) return undefined;
    const after = await updateOrganisationRow(trx, org.id, change);
    await audit(trx, {
      orgId: org.id,
      slug: org.slug,
      before: { name: before.name, storage_quota_bytes: before.storage_quota_bytes },
      after: { name: after.name, storage_quota_bytes: after.storage_quota_bytes },
    });
    return after;
  });
  if (!updated) throw deletingRefusal(org);
  return updated;
}

const deletingRefusal = (org: OrganisationRow) =>
  new Refusal("conflict", "ORGANISATION_DELETING", `The organisation "${org.slug}" is being deleted; it can no longer be changed.`, { slug: org.slug });

/**
 * Asks for an organisation's deletion: `confirm` must be its slug, and the operator organisation
 * itself is never deleted. Its people are locked out at once (`deleting_since`); the job is
 * queued after the transaction commits. Asking again answers the deletion under way.
 */
export async function requestOrganisationDeletion(
  deps: DeletionDeps,
  operator: Operator,
  request: { org: string; confirm: string | undefined },
): Promise<OrgDeletionRow> {
  const org = await organisationNamed(deps, request.org);
  if (request.confirm !== org.slug)
    throw new Refusal(
      "conflict",
      "CONFIRMATION_MISMATCH",
      `Deleting "${org.name}" removes everything it owns and cannot be undone: confirm with its slug "${org.slug}".`,
      { slug: org.slug },
    );
  if (deps.config.server.OPS_ORG && org.slug === deps.config.server.OPS_ORG)
    throw new Refusal("conflict", "OPERATOR_ORGANISATION", `"${org.slug}" is the operator organisation (OPS_ORG); it cannot be deleted.`, { slug: org.slug });
  const audit = auditor(deps, operator, "organization.deletion_requested", { deleting: true });
  const opened = await openOrgDeletion(deps.db, org.id, { requestedBy: operator.via === "api" ? operator.userId : null, via: operator.via }, (trx, deletion) =>
    audit(trx, { orgId: org.id, slug: org.slug, details: { deletion_id: deletion.id, name: org.name, run: deletion.runs } }),
  );
  if (!opened) throw Refusal.notFound(`Organisation "${request.org}"`);
  const { deletion } = opened;
  if (opened.queue) {
    try {
      await deps.producer.enqueueOrgDeletion({ orgId: org.id, deletionId: deletion.id, run: deletion.runs });
    } catch (error) {
      await failOperation(deps.db, "org_deletions", deletion.id, { code: "QUEUE_UNAVAILABLE", message: "the job could not be queued; ask again to retry" });
      throw new Refusal(
        "unavailable",
        "QUEUE_UNAVAILABLE",
        "The deletion could not be queued (Redis refused it); its people stay locked out. Ask again.",
        undefined,
        {
          cause: error,
        },
      );
    }
    deps.log.info({ orgId: org.id, slug: org.slug, deletionId: deletion.id, run: deletion.runs, via: operator.via }, "organisation deletion queued");
  }
  return { ...deletion, status: opened.queue ? "queued" : deletion.status };
}
