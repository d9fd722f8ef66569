/**
 * Organisations as an operator sees them: created with their first admin, listed with counts,
 * renamed, given a storage quota (as read; the writes are organization-writes.ts, called by
 * commands/organisations.ts, which audits each in the operator's own organisation).
 */
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

export const ORGANISATION_COLUMNS = ["id", "slug", "name", "storage_quota_bytes", "deleting_since", "created_at"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseOrganisationRow(row: Record<string, unknown> | undefined): OrganisationRow | undefined {
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
  const query = db("organizations").select(ORGANISATION_COLUMNS);
  if (UUID.test(idOrSlug)) query.where({ id: idOrSlug }).orWhere({ slug: idOrSlug });
  else query.where({ slug: idOrSlug });
  return parseOrganisationRow(await query.first());
}

/** A page of organisations, oldest first, each with how many people and documents it has. */
export async function listOrganisations(db: Db, page: { limit: number; offset: number }): Promise<{ total: number; organisations: OrganisationSummary[] }> {
  const [counted] = await db("organizations").count<{ count: string }[]>("* as count");
  const rows = await db("organizations as o")
    .select(ORGANISATION_COLUMNS.map((column) => `o.${column}`))
    .select(db.raw("(SELECT count(*) FROM users u WHERE u.org_id = o.id)::int AS people"))
    .select(db.raw("(SELECT count(*) FROM documents d WHERE d.org_id = o.id)::int AS documents"))
    .orderBy([{ column: "o.created_at" }, { column: "o.slug" }])
    .limit(page.limit)
    .offset(page.offset);
  return {
    total: Number(counted?.count ?? 0),
    organisations: rows.map((row) => ({ ...parseOrganisationRow(row)!, people: Number(row.people), documents: Number(row.documents) })),
  };
}

/** The organisation's id for a slug (how OPS_ORG names the operator organisation). */
export async function organisationIdOfSlug(db: Db, slug: string): Promise<string | undefined> {
  return (await db("organizations").where({ slug }).first("id"))?.id;
}
