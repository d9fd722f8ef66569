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

const COLUMNS = ["id", "org_id", "user_id", "family_id", "provider_id", "expires_at", "used_at", "revoked_at"];

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
 * Two tabs of one browser share the cookie and may refresh at the same moment: the loser presents
 * a token the winner spent a moment ago. Within this window that is not a theft, so the loser
 * gets a successor of its own in the same family instead of ending the session everywhere.
 */
export const CONCURRENT_REFRESH_GRACE_SECONDS = 10;

/**
 * Spends a token exactly once (a conditional update, so two concurrent refreshes cannot both
 * spend it). A token spent longer than CONCURRENT_REFRESH_GRACE_SECONDS ago is reported as
 * `reused` and its family revoked.
 */
export async function spendRefreshToken(db: Db, token: string): Promise<SpendOutcome> {
  const hash = hashOf(token);
  const [spent] = await db("refresh_tokens")
    .where({ token_hash: hash })
    .whereNull("used_at")
    .whereNull("revoked_at")
    .where("expires_at", ">", db.fn.now())
    .update({ used_at: db.fn.now() })
    .returning(COLUMNS);
  if (spent) return { kind: "spent", row: spent as RefreshTokenRow };
  const row = (await db("refresh_tokens")
    .select([...COLUMNS, db.raw("used_at > now() - make_interval(secs => ?) AS just_spent", [CONCURRENT_REFRESH_GRACE_SECONDS])])
    .where({ token_hash: hash })
    .first()) as (RefreshTokenRow & { just_spent: boolean | null }) | undefined;
  if (!row) return { kind: "unknown" };
  const { just_spent: justSpent, ...stored } = row;
  if (stored.revoked_at) return { kind: "revoked" };
  if (stored.expires_at.getTime() <= Date.now()) return { kind: "expired" };
  if (stored.used_at && justSpent) return { kind: "spent", row: stored };
  if (stored.used_at) {
    await revokeRefreshFamily(db, stored.family_id);
    return { kind: "reused", row: stored };
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

/** Every live refresh token of the sessions a provider began: it was turned off or removed. */
export async function revokeRefreshTokensBegunBy(db: Db, providerId: string): Promise<number> {
  return db("refresh_tokens").where({ provider_id: providerId }).whereNull("revoked_at").update({ revoked_at: db.fn.now() });
}
