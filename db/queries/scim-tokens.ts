/**
 * The organisation's SCIM bearer token: one live token per organisation, stored as a SHA-256
 * hash with the last characters as a hint. Creating one replaces the previous token at once
 * (rotation), so the identity system must be given the new one (commands/scim-token.ts).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Db } from "../knex";

export interface ScimTokenRow {
  id: string;
  org_id: string;
  hint: string;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

export const SCIM_TOKEN_COLUMNS = ["id", "org_id", "hint", "created_by", "created_at", "last_used_at"];
export const SCIM_TOKEN_PREFIX = "scim_";
export const SCIM_TOKEN_HINT_LENGTH = 4;
/** last_used_at is written at most this often per token, so a sync's thousands of calls cost one write a minute. */
const TOUCH_EVERY_MS = 60_000;

export const hashOfScimToken = (token: string): Buffer => createHash("sha256").update(token).digest();

export async function findScimTokenOfOrg(db: Db, orgId: string): Promise<ScimTokenRow | undefined> {
  return db("scim_tokens").select(SCIM_TOKEN_COLUMNS).where({ org_id: orgId }).first();
}

/**
 * The token's row, found by its hash; the stored hash is compared again in constant time, so
 * neither the index nor the comparison tells an attacker how close a guess came.
 */
export async function findScimToken(db: Db, token: string): Promise<ScimTokenRow | undefined> {
  if (!token.startsWith(SCIM_TOKEN_PREFIX) || token.length > 200) return undefined;
  const hash = hashOfScimToken(token);
  // A token of an organisation being deleted no longer reads or changes its people.
  const row = await db("scim_tokens as t")
    .join("organizations as o", "o.id", "t.org_id")
    .whereNull("o.deleting_since")
    .select([...SCIM_TOKEN_COLUMNS.map((column) => `t.${column}`), "t.token_hash"])
    .where({ "t.token_hash": hash.toString("hex") })
    .first();
  if (!row) return undefined;
  const stored = Buffer.from(String(row.token_hash), "hex");
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return undefined;
  const { token_hash: _hash, ...found } = row;
  return found as ScimTokenRow;
}

/** Records that the token was used, at most once a minute. */
export async function touchScimToken(db: Db, token: ScimTokenRow): Promise<void> {
  if (token.last_used_at && Date.now() - token.last_used_at.getTime() < TOUCH_EVERY_MS) return;
  await db("scim_tokens").where({ id: token.id }).update({ last_used_at: db.fn.now() });
}
