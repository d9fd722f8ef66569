/**
 * The browser's refresh tokens (an HttpOnly cookie; see server/auth). Stored as SHA-256 hashes,
 * grouped in families: each use spends the token and issues its successor in the same family; a
 * spent token presented again means a copy was stolen, so the whole family is revoked.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../knex";

export interface RefreshTokenRow {
  id: string;
  org_id: string;
  user_id: string;
  family_id: string;
  provider_id: string | null;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export interface IssuedRefreshToken {
  token: string;
  familyId: string;
  expiresAt: Date;
}

/** A new token; a new family unless `familyId` continues one (rotation). */
export async function issueRefreshToken(
  db: Db,
  grant: { orgId: string; userId: string; providerId: string | null; ttlSeconds: number; familyId?: string },
): Promise<IssuedRefreshToken> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + grant.ttlSeconds * 1000);
  const [row] = await db("refresh_tokens")
    .insert({
      org_id: grant.orgId,
      user_id: grant.userId,
      family_id: grant.familyId ?? db.raw("gen_random_uuid()"),
      provider_id: grant.providerId,
      token_hash: hashOf(token),
      expires_at: expiresAt,
    })
    .returning("family_id");
  return { token, familyId: row.family_id as string, expiresAt };
}

export type SpendOutcome = { kind: "spent"; row: RefreshTokenRow } | { kind: "reused"; row: RefreshTokenRow } | { kind: "unknown" | "expired" | "revoked" };

/**
 * Spends a token exactly once (a conditional update, so two concurrent refreshes cannot both
 * win). A token already spent is reported as `reused` and its family revoked.
 */
export async function spendRefreshToken(db: Db, token: string): Promise<SpendOutcome> {
  const hash = hashOf(token);
  const [spent] = await db("refresh_tokens")
    .where({ token_hash: hash })
    .whereNull("used_at")
    .whereNull("revoked_at")
    .where("expires_at", ">", db.fn.now())
    .update({ used_at: db.fn.now() })
    .returning(["id", "org_id", "user_id", "family_id", "provider_id", "expires_at", "used_at", "revoked_at"]);
  if (spent) return { kind: "spent", row: spent as RefreshTokenRow };
  const row = (await db("refresh_tokens").where({ token_hash: hash }).first()) as RefreshTokenRow | undefined;
  if (!row) return { kind: "unknown" };
  if (row.revoked_at) return { kind: "revoked" };
  if (row.used_at) {
    await revokeRefreshFamily(db, row.family_id);
    return { kind: "reused", row };
  }
  return { kind: "expired" };
}

/** The token's row if it is still usable, without spending it (sign-out reads which family to end). */
export async function findLiveRefreshToken(db: Db, token: string): Promise<RefreshTokenRow | undefined> {
  return (await db("refresh_tokens")
    .where({ token_hash: hashOf(token) })
    .whereNull("revoked_at")
    .where("expires_at", ">", db.fn.now())
    .first()) as RefreshTokenRow | undefined;
}

export async function revokeRefreshFamily(db: Db, familyId: string): Promise<number> {
  return db("refresh_tokens").where({ family_id: familyId }).whereNull("revoked_at").update({ revoked_at: db.fn.now() });
}

/** Every live refresh token of a person: sign-out everywhere, deactivation, SCIM delete. */
export async function revokeRefreshTokensOfUser(db: Db, orgId: string, userId: string): Promise<number> {
  return db("refresh_tokens").where({ org_id: orgId, user_id: userId }).whereNull("revoked_at").update({ revoked_at: db.fn.now() });
}
