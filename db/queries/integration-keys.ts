/**
 * An organisation's integration keys. A key is `skn_` + 32 random bytes, returned once when it is
 * created; only its SHA-256 hash and last four characters (the hint) are stored. A key found by a
 * request must be of a live organisation, not revoked and not expired, and works only while the
 * admin who created it is still an active admin of that organisation (see findLiveIntegrationKey).
 * An organisation holds at most MAX_ACTIVE_INTEGRATION_KEYS unrevoked, unexpired keys.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import type { IntegrationScope } from "../../lib/integration-scopes";
import type { Db } from "../knex";

export interface IntegrationKeyRow {
  id: string;
  org_id: string;
  name: string;
  scopes: IntegrationScope[];
  hint: string;
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export const INTEGRATION_KEY_COLUMNS = ["id", "org_id", "name", "scopes", "hint", "created_by", "created_at", "expires_at", "last_used_at", "revoked_at"];
export const INTEGRATION_KEY_PREFIX = "skn_";
export const INTEGRATION_KEY_HINT_LENGTH = 4;
/** last_used_at is written at most this often per key, so a sync's thousands of calls cost one write a minute. */
const TOUCH_EVERY_MS = 60_000;

export const hashOfIntegrationKey = (key: string): Buffer => createHash("sha256").update(key).digest();

/**
 * Unrevoked, unexpired keys an organisation may hold at once. One key per integration (an HR
 * sync, an LMS, a document mirror, a BI export…) plus one being rotated in for each leaves room
 * for ten integrations; more than that is keys nobody tracks, each one a bearer secret to lose.
 */
export const MAX_ACTIVE_INTEGRATION_KEYS = 20;

/** The organisation already holds MAX_ACTIVE_INTEGRATION_KEYS live keys: one must be revoked first. */
export class IntegrationKeyLimitReached extends Error {
  constructor(readonly active: number) {
    super(`the organisation already has ${active} active integration keys`);
    this.name = "IntegrationKeyLimitReached";
  }
}

/** The organisation's keys, newest first, revoked ones included (the console shows when), with whether their creator still stands behind them. */
export async function listIntegrationKeys(db: Db, orgId: string): Promise<ListedIntegrationKey[]> {
  return db("integration_keys as k")
    .leftJoin("users as u", creatorStillAdmin)
    .select([...INTEGRATION_KEY_COLUMNS.map((column) => `k.${column}`), db.raw("u.id is not null as creator_is_admin")])
    .where({ "k.org_id": orgId })
    .orderBy("k.created_at", "desc");
}

/**
 * Joins `users as u` to `integration_keys as k` only while the key's creator is an active admin
 * of the key's organisation: `u.id is not null` says the key may be used.
 */
function creatorStillAdmin(this: Knex.JoinClause): void {
  this.on("u.id", "k.created_by")
    .andOn("u.org_id", "k.org_id")
    .andOnVal("u.role", "admin")
    .andOnVal("u.is_active", true)
    .andOnNull("u.erased_at")
    .andOnNull("u.scim_deleted_at");
}

/** A key a request presents, or the console lists, with whether its creator still stands behind it. */
export interface ListedIntegrationKey extends IntegrationKeyRow {
  /**
   * The creator is an active admin of the key's organisation right now. False once they are
   * demoted, deactivated (console, SCIM, sign-in sync, the assistant), erased or deleted, or when
   * the key has no creator: a key acts with an admin's authority, so it lives no longer than it.
   */
  creator_is_admin: boolean;
}

type PresentedIntegrationKey = ListedIntegrationKey;

/**
 * The unrevoked, unexpired key a request presents, of an organisation not being deleted, found
 * by its hash and compared again in constant time; undefined otherwise. Whether its creator is
 * still an active admin is read in the same query, at every request, whatever path demoted them.
 */
export async function findLiveIntegrationKey(db: Db, key: string): Promise<PresentedIntegrationKey | undefined> {
  if (!key.startsWith(INTEGRATION_KEY_PREFIX) || key.length > 200) return undefined;
  const hash = hashOfIntegrationKey(key);
  const row = await db("integration_keys as k")
    .join("organizations as o", "o.id", "k.org_id")
    .leftJoin("users as u", creatorStillAdmin)
    .whereNull("o.deleting_since")
    .whereNull("k.revoked_at")
    .where((q) => q.whereNull("k.expires_at").orWhere("k.expires_at", ">", db.fn.now()))
    .select([...INTEGRATION_KEY_COLUMNS.map((column) => `k.${column}`), "k.key_hash", db.raw("u.id is not null as creator_is_admin")])
    .where({ "k.key_hash": hash.toString("hex") })
    .first();
  if (!row) return undefined;
  const stored = Buffer.from(String(row.key_hash), "hex");
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return undefined;
  const { key_hash: _hash, ...found } = row;
  return found as PresentedIntegrationKey;
}

/** Records that the key was used, at most once a minute. */
export async function touchIntegrationKey(db: Db, key: IntegrationKeyRow): Promise<void> {
  if (key.last_used_at && Date.now() - key.last_used_at.getTime() < TOUCH_EVERY_MS) return;
  await db("integration_keys").where({ id: key.id }).update({ last_used_at: db.fn.now() });
}
