/**
 * Organisations as an operator sees them: created with their first admin, listed with counts,
 * renamed, given a storage quota. Operator changes are audited in the operator's own
 * organisation (`auditOperatorChange`), since the organisation changed may later be deleted
 * with all its rows.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";

export interface OrganisationRow {
  id: string;
  slug: string;
  name: string;
  storage_quota_bytes: number | null;
  deleting_since: Date | null;
  created_at: Date;
}

export interface OrganisationSummary extends OrganisationRow {
  people: number;
  documents: number;
}

const COLUMNS = ["id", "slug", "name", "storage_quota_bytes", "deleting_since", "created_at"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseRow(row: Record<string, unknown> | undefined): OrganisationRow | undefined {
  if (!row) return undefined;
  const quota = row.storage_quota_bytes;
  return {
    id: String(row.id),
    slug: String(row.slug),
    name: String(row.name),
    // bigint arrives as a string from pg.
    storage_quota_bytes: quota === null || quota === undefined ? null : Number(quota),
    deleting_since: row.deleting_since instanceof Date ? row.deleting_since : null,
    created_at: row.created_at as Date,
  };
}

/** By id or by slug (what an operator types); a string that is not a uuid is only ever a slug. */
export async function findOrganisation(db: Db, idOrSlug: string): Promise<OrganisationRow | undefined> {
  const query = db("organizations").select(COLUMNS);
  if (UUID.test(idOrSlug)) query.where({ id: idOrSlug }).orWhere({ slug: idOrSlug });
  else query.where({ slug: idOrSlug });
  return parseRow(await query.first());
}

/** Why a new organisation or admin could not be stored: its slug or the admin's email is taken. */
export type CreateConflict = "slug" | "email";

export interface NewOrganisation {
  name: string;
  slug: string;
  admin: { email: string; name: string; provisionedVia: "cli" | "api" };
}

/**
 * The organisation and its first admin in one transaction, so neither exists without the other.
 * A taken slug or email is answered as a conflict, not thrown: both are the caller's input.
 */
export async function createOrganisationWithAdmin(
  db: Db,
  input: NewOrganisation,
  audit: (trx: Knex.Transaction, created: { orgId: string; adminId: string }) => Promise<void>,
): Promise<{ ok: true; org: OrganisationRow; adminId: string } | { ok: false; conflict: CreateConflict }> {
  const email = input.admin.email.trim().toLowerCase();
  try {
    return await db.transaction(async (trx) => {
      const [org] = await trx("organizations").insert({ name: input.name, slug: input.slug }).returning(COLUMNS);
      const [admin] = await trx("users")
        .insert({ org_id: org.id, email, name: input.admin.name, role: "admin", provisioned_via: input.admin.provisionedVia, locale: "en" })
        .returning("id");
      await audit(trx, { orgId: org.id, adminId: admin.id });
      return { ok: true as const, org: parseRow(org)!, adminId: String(admin.id) };
    });
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code !== "23505") throw error;
    return { ok: false, conflict: constraint?.startsWith("users") ? "email" : "slug" };
  }
}

/** A page of organisations, oldest first, each with how many people and documents it has. */
export async function listOrganisations(db: Db, page: { limit: number; offset: number }): Promise<{ total: number; organisations: OrganisationSummary[] }> {
  const [counted] = await db("organizations").count<{ count: string }[]>("* as count");
  const rows = await db("organizations as o")
    .select(COLUMNS.map((column) => `o.${column}`))
    .select(db.raw("(SELECT count(*) FROM users u WHERE u.org_id = o.id)::int AS people"))
    .select(db.raw("(SELECT count(*) FROM documents d WHERE d.org_id = o.id)::int AS documents"))
    .orderBy([{ column: "o.created_at" }, { column: "o.slug" }])
    .limit(page.limit)
    .offset(page.offset);
  return {
    total: Number(counted?.count ?? 0),
    organisations: rows.map((row) => ({ ...parseRow(row)!, people: Number(row.people), documents: Number(row.documents) })),
  };
}

export interface OrganisationChange {
  name?: string;
  /** null: back to ORG_STORAGE_QUOTA_BYTES. */
  storage_quota_bytes?: number | null;
}

/** Renames and/or re-quotas an organisation (not one being deleted); returns it before and after, with the audit in the same transaction. */
export async function updateOrganisation(
  db: Db,
  orgId: string,
  change: OrganisationChange,
  audit: (trx: Knex.Transaction, before: OrganisationRow, after: OrganisationRow) => Promise<void>,
): Promise<{ before: OrganisationRow; after: OrganisationRow } | undefined> {
  return db.transaction(async (trx) => {
    const before = parseRow(await trx("organizations").select(COLUMNS).where({ id: orgId }).whereNull("deleting_since").forUpdate().first());
    if (!before) return undefined;
    const [row] = await trx("organizations").where({ id: orgId }).update(change).returning(COLUMNS);
    const after = parseRow(row)!;
    await audit(trx, before, after);
    return { before, after };
  });
}

export interface OperatorAudit {
  /** The operator's own organisation: where the row is kept (it outlives the one changed). */
  auditOrgId: string;
  actorId: string | null;
  action: string;
  target: { orgId: string; slug: string };
  details?: Record<string, unknown>;
  before?: unknown;
  after?: unknown;
}

/** One audit row for an operator's change of an organisation (`target_type` organization, `target_id` its id). */
export async function auditOperatorChange(db: Db | Knex.Transaction, entry: OperatorAudit): Promise<void> {
  await db("audit_log").insert({
    org_id: entry.auditOrgId,
    actor_id: entry.actorId,
    action: entry.action,
    target_type: "organization",
    target_id: entry.target.orgId,
    details: JSON.stringify({ slug: entry.target.slug, ...entry.details }),
    before: entry.before === undefined ? null : JSON.stringify(entry.before),
    after: entry.after === undefined ? null : JSON.stringify(entry.after),
  });
}

/** The organisation's id for a slug (how OPS_ORG names the operator organisation). */
export async function organisationIdOfSlug(db: Db, slug: string): Promise<string | undefined> {
  return (await db("organizations").where({ slug }).first("id"))?.id;
}
