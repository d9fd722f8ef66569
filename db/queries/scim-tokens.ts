/**
 * The organisation's SCIM bearer token: one live token per organisation, stored as a SHA-256
 * hash with the last characters as a hint. Creating one replaces the previous token at once
 * (rotation), so the identity system must be given the new one.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../knex";
import { recordAudit } from "./audit-log";

export interface ScimTokenRow {
  id: string;
  org_id: string;
  hint: string;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = ["id", "org_id", "hint", "created_by", "created_at", "last_used_at"];
const PREFIX = "scim_";
const HINT_LENGTH = 4;
/** last_used_at is written at most this often per token, so a sync's thousands of calls cost one write a minute. */
const TOUCH_EVERY_MS = 60_000;

const hashOf = (token: string): Buffer => createHash("sha256").update(token).digest();

/** Creates the organisation's token, replacing any previous one; the token is returned once, here. */
export async function replaceScimToken(db: Db, input: { orgId: string; actorId: string }): Promise<{ token: string; row: ScimTokenRow; rotated: boolean }> {
  const token = `${PREFIX}${randomBytes(32).toString("base64url")}`;
  return db.transaction(async (trx) => {
    // Two rotations at once (a double click) take turns: the second replaces the first's token
    // instead of failing on the one-token-per-organisation constraint.
    await trx("organizations").where({ id: input.orgId }).forUpdate().first("id");
    const removed = await trx("scim_tokens").where({ org_id: input.orgId }).delete().returning(["id", "hint"]);
    const [row] = await trx("scim_tokens")
      .insert({ org_id: input.orgId, token_hash: hashOf(token).toString("hex"), hint: token.slice(-HINT_LENGTH), created_by: input.actorId })
      .returning(COLUMNS);
    const rotated = removed.length > 0;
    await recordAudit(trx, {
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      name: rotated ? "scim.token.rotated" : "scim.token.created",
      target: { type: "scim_token", id: row.id },
      before: rotated ? { id: removed[0].id, hint: removed[0].hint } : null,
      after: { id: row.id, hint: row.hint },
    });
    return { token, row: row as ScimTokenRow, rotated };
  });
}

/** Removes the token (SCIM calls get 401 from now on); false when there was none. */
export async function revokeScimToken(db: Db, input: { orgId: string; actorId: string }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const [removed] = await trx("scim_tokens").where({ org_id: input.orgId }).delete().returning(["id", "hint"]);
    if (!removed) return false;
    await recordAudit(trx, {
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      name: "scim.token.revoked",
      target: { type: "scim_token", id: removed.id },
      before: { id: removed.id, hint: removed.hint },
      after: null,
    });
    return true;
  });
}

export async function findScimTokenOfOrg(db: Db, orgId: string): Promise<ScimTokenRow | undefined> {
  return db("scim_tokens").select(COLUMNS).where({ org_id: orgId }).first();
}

/**
 * The token's row, found by its hash; the stored hash is compared again in constant time, so
 * neither the index nor the comparison tells an attacker how close a guess came.
 */
export async function findScimToken(db: Db, token: string): Promise<ScimTokenRow | undefined> {
  if (!token.startsWith(PREFIX) || token.length > 200) return undefined;
  const hash = hashOf(token);
  // A token of an organisation being deleted no longer reads or changes its people.
  const row = await db("scim_tokens as t")
    .join("organizations as o", "o.id", "t.org_id")
    .whereNull("o.deleting_since")
    .select([...COLUMNS.map((column) => `t.${column}`), "t.token_hash"])
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
