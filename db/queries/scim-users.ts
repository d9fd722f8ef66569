/**
 * People as SCIM sees them: every person of the organisation that a SCIM DELETE has not removed.
 * Writes come from the organisation's identity system (the server maps SCIM attributes to these
 * fields); each change is audited with the SCIM token as the actor, and deactivating someone
 * revokes their refresh tokens in the same transaction (their open sockets are cut by the
 * servers' re-check within SOCKET_REAUTH_INTERVAL_MS).
 */
import type { Knex } from "knex";
import { Refusal } from "../../lib/refusal";
import type { Db } from "../knex";
import { refusingDuplicates } from "./unique-violation";
import { revokeRefreshTokensOfUser } from "./refresh-tokens";
import { recordAudit } from "./audit-log";
import { type ScimActor, scimActor } from "./scim-audit";
import { type ScimWhere, applyScimWhere } from "./scim-filter";
import { onLeft } from "./scim-mapping";
import { emailKeptByAnotherOrganisation } from "./organisation-domains";

export interface ScimUserFields {
  email: string;
  name: string;
  given_name: string | null;
  family_name: string | null;
  external_id: string | null;
  is_active: boolean;
  /** Undefined keeps what is stored (a group mapping may own it); null clears it. */
  job_title?: string | null;
  department?: string | null;
  /** ISO 639-1. */
  locale?: string;
}

export interface ScimUserRow {
  id: string;
  org_id: string;
  email: string;
  name: string;
  given_name: string | null;
  family_name: string | null;
  external_id: string | null;
  is_active: boolean;
  job_title: string | null;
  department: string | null;
  /** ISO 639-1. */
  locale: string;
  role: "admin" | "employee";
  created_at: Date;
}

const COLUMNS = [
  "id",
  "org_id",
  "email",
  "name",
  "given_name",
  "family_name",
  "external_id",
  "is_active",
  "job_title",
  "department",
  "locale",
  "role",
  "created_at",
];

/** The SCIM attributes a filter may name, and their columns. */
export const USER_FILTER_COLUMNS = {
  id: { column: "users.id::text" },
  userName: { column: "email", caseInsensitive: true },
  "emails.value": { column: "email", caseInsensitive: true },
  externalId: { column: "external_id" },
  active: { column: "is_active", boolean: true },
  displayName: { column: "name", caseInsensitive: true },
} as const;

/** SCIM sees neither a deleted person nor one whose erasure was asked for (404: gone, however Entra's cycle re-asserts them). */
const visible = (db: Db | Knex.Transaction, orgId: string) =>
  db("users").where({ org_id: orgId }).whereNull("scim_deleted_at").whereNull("erasure_requested_at");

const taken = (): Refusal => new Refusal("conflict", "SCIM_UNIQUENESS", "userName or externalId is already in use by another person");
/**
 * An address another organisation keeps (someone there has it, or it verified the domain:
 * organisation-domains.ts): one answer for both reasons, so it says neither (review F15).
 */
const keptElsewhere = (): Refusal =>
  new Refusal(
    "conflict",
    "SCIM_UNIQUENESS",
    "userName cannot be provisioned in this organisation: the address, or its domain, belongs to another organisation",
  );

export async function findScimUser(db: Db, orgId: string, id: string): Promise<ScimUserRow | undefined> {
  return visible(db, orgId).where({ id }).first(COLUMNS);
}

export async function listScimUsers(
  db: Db,
  orgId: string,
  where: ScimWhere,
  page: { offset: number; limit: number },
): Promise<{ rows: ScimUserRow[]; total: number }> {
  const base = visible(db, orgId);
  applyScimWhere(base, where, USER_FILTER_COLUMNS);
  const [counted] = await base.clone().count<{ count: string }[]>("* as count");
  const rows = page.limit === 0 ? [] : await base.select(COLUMNS).orderBy("created_at").orderBy("id").offset(page.offset).limit(page.limit);
  return { rows, total: Number(counted?.count ?? 0) };
}

const audited = (row: ScimUserRow) => ({
  userName: row.email,
  name: row.name,
  externalId: row.external_id,
  active: row.is_active,
  title: row.job_title,
  department: row.department,
  role: row.role,
});

const writable = (fields: ScimUserFields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<ScimUserFields>;

/**
 * Creates the person, or brings back the one a SCIM DELETE removed from this organisation (same
 * id, their chats intact). An address another organisation keeps, or one someone here already
 * has, is a 409 (the first never says which organisation or why).
 */
export async function createScimUser(db: Db, orgId: string, fields: ScimUserFields, actor: ScimActor): Promise<ScimUserRow> {
  return refusingDuplicates(taken, () =>
    db.transaction(async (trx) => {
      const existing = await trx("users").where({ email: fields.email }).first("id", "org_id", "scim_deleted_at", "erasure_requested_at");
      if (await emailKeptByAnotherOrganisation(trx, orgId, fields.email)) throw keptElsewhere();
      // A person being erased is not restored: their address is free again once the erasure has anonymised the row.
      if (existing && (existing.org_id !== orgId || !existing.scim_deleted_at || existing.erasure_requested_at)) throw taken();
      const values = { ...writable(fields), deactivated_at: fields.is_active ? null : trx.fn.now() };
      const [row] = existing
        ? await trx("users")
            .where({ id: existing.id })
            .update({ ...values, scim_deleted_at: null })
            .returning(COLUMNS)
        : await trx("users")
            .insert({ ...values, org_id: orgId, role: "employee", provisioned_via: "scim" })
            .returning(COLUMNS);
      await recordAudit(trx, {
        orgId,
        actor: scimActor(actor),
        name: existing ? "scim.user.restored" : "scim.user.created",
        target: { type: "user", id: row.id },
        before: null,
        after: audited(row),
      });
      return row as ScimUserRow;
    }),
  );
}

/** Applies the new state (PUT, or PATCH applied to the locked row); audits only what changed. */
/** The new state from the current one, or null for no change; called with the person's row locked (see GroupChange). */
export type UserChange = (current: ScimUserRow) => Promise<ScimUserFields | null>;

export async function updateScimUser(db: Db, orgId: string, id: string, change: UserChange, actor: ScimActor): Promise<ScimUserRow | undefined> {
  return refusingDuplicates(taken, () =>
    db.transaction(async (trx) => {
      const before = (await visible(trx, orgId).where({ id }).forUpdate().first(COLUMNS)) as ScimUserRow | undefined;
      if (!before) return undefined;
      const fields = await change(before);
      if (!fields) return before;
      if (fields.email !== before.email && (await emailKeptByAnotherOrganisation(trx, orgId, fields.email))) throw keptElsewhere();
      if (fields.email !== before.email && (await trx("users").where({ email: fields.email }).whereNot({ id }).first("id"))) throw taken();
      const deactivated = before.is_active && !fields.is_active;
      const reactivated = !before.is_active && fields.is_active;
      const [after] = await trx("users")
        .where({ id, org_id: orgId })
        .update({ ...writable(fields), ...(deactivated ? { deactivated_at: trx.fn.now() } : reactivated ? { deactivated_at: null } : {}) })
        .returning(COLUMNS);
      if (deactivated) await revokeRefreshTokensOfUser(trx, orgId, id);
      const [was, is] = [audited(before), audited(after)];
      const changed = Object.keys(is).filter((key) => was[key as keyof typeof was] !== is[key as keyof typeof is]);
      if (changed.length > 0) {
        await recordAudit(trx, {
          orgId,
          actor: scimActor(actor),
          name: deactivated ? "scim.user.deactivated" : reactivated ? "scim.user.reactivated" : "scim.user.updated",
          target: { type: "user", id: id },
          before: Object.fromEntries(changed.map((key) => [key, was[key as keyof typeof was]])),
          after: Object.fromEntries(changed.map((key) => [key, is[key as keyof typeof is]])),
        });
      }
      return after as ScimUserRow;
    }),
  );
}

/**
 * SCIM DELETE: the person is deactivated, leaves every group (with what the groups' mappings
 * gave them), loses their refresh tokens and disappears from SCIM (404 from now on). Nothing
 * they wrote is erased. False when there was no such person.
 */
export async function deleteScimUser(db: Db, orgId: string, id: string, actor: ScimActor): Promise<boolean> {
  return db.transaction(async (trx) => {
    const before = (await visible(trx, orgId).where({ id }).forUpdate().first(COLUMNS)) as ScimUserRow | undefined;
    if (!before) return false;
    const groups = await trx("scim_group_members as m")
      .join("scim_groups as g", "g.id", "m.group_id")
      .where({ "m.user_id": id, "g.org_id": orgId })
      .select("g.id", "g.org_id", "g.display_name", "g.mapping");
    await trx("scim_group_members").where({ user_id: id, org_id: orgId }).delete();
    for (const group of groups) await onLeft(trx, group, [id]);
    await trx("users")
      .where({ id, org_id: orgId })
      .update({ is_active: false, deactivated_at: before.is_active ? trx.fn.now() : trx.raw("deactivated_at"), scim_deleted_at: trx.fn.now() });
    await revokeRefreshTokensOfUser(trx, orgId, id);
    await recordAudit(trx, {
      orgId,
      actor: scimActor(actor),
      name: "scim.user.deleted",
      target: { type: "user", id: id },
      before: audited(before),
      after: null,
      details: { left_groups: groups.map((g) => g.id) },
    });
    return true;
  });
}
