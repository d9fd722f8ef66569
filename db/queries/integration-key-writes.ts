/**
 * Integration keys as written, inside the transaction of commands/integration-keys.ts (which
 * enforces the cap and records the audit event). Nothing here opens a transaction.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { IntegrationScope } from "../../lib/integration-scopes";
import { INTEGRATION_KEY_COLUMNS, INTEGRATION_KEY_HINT_LENGTH, INTEGRATION_KEY_PREFIX, hashOfIntegrationKey, type IntegrationKeyRow } from "./integration-keys";

export interface NewIntegrationKey {
  orgId: string;
  name: string;
  scopes: IntegrationScope[];
  expiresAt: Date | null;
  createdBy: string | null;
}

/** Unrevoked, unexpired keys of the organisation, counted under a lock on its row (two creations take turns). */
export async function lockAndCountActiveKeys(trx: Knex.Transaction, orgId: string): Promise<number> {
  await trx("organizations").where({ id: orgId }).forUpdate().first("id");
  const [counted] = (await trx("integration_keys")
    .where({ org_id: orgId })
    .whereNull("revoked_at")
    .where((q) => q.whereNull("expires_at").orWhere("expires_at", ">", trx.fn.now()))
    .count("* as count")) as Array<{ count: string }>;
  return Number(counted?.count ?? 0);
}

/** A new key: only its hash and hint are stored; the key itself is returned once, here. */
export async function insertIntegrationKey(trx: Knex.Transaction, input: NewIntegrationKey): Promise<{ key: string; row: IntegrationKeyRow }> {
  const key = `${INTEGRATION_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  const [row] = await trx("integration_keys")
    .insert({
      org_id: input.orgId,
      name: input.name,
      scopes: input.scopes,
      key_hash: hashOfIntegrationKey(key).toString("hex"),
      hint: key.slice(-INTEGRATION_KEY_HINT_LENGTH),
      created_by: input.createdBy,
      expires_at: input.expiresAt,
    })
    .returning(INTEGRATION_KEY_COLUMNS);
  return { key, row: row as IntegrationKeyRow };
}

export async function lockIntegrationKey(trx: Knex.Transaction, orgId: string, keyId: string): Promise<IntegrationKeyRow | undefined> {
  return trx("integration_keys").select(INTEGRATION_KEY_COLUMNS).where({ org_id: orgId, id: keyId }).forUpdate().first();
}

export async function markIntegrationKeyRevoked(trx: Knex.Transaction, keyId: string): Promise<IntegrationKeyRow> {
  const [row] = await trx("integration_keys").where({ id: keyId }).update({ revoked_at: trx.fn.now() }).returning(INTEGRATION_KEY_COLUMNS);
  return row as IntegrationKeyRow;
}
