/**
 * An organisation's integration keys: an admin creates one (the key is returned once) or revokes
 * it (`integration_key.created`, `.revoked`), and every request made with a write scope leaves
 * one `integration_key.write_requested` row naming the key, what it called and how it ended.
 */
import { recordAudit } from "../db/queries/audit-log";
import {
  insertIntegrationKey,
  lockAndCountActiveKeys,
  lockIntegrationKey,
  markIntegrationKeyRevoked,
  type NewIntegrationKey,
} from "../db/queries/integration-key-writes";
import { IntegrationKeyLimitReached, MAX_ACTIVE_INTEGRATION_KEYS, type IntegrationKeyRow } from "../db/queries/integration-keys";
import type { IntegrationScope } from "../lib/integration-scopes";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

type KeyDeps = Pick<CommandDeps, "db">;

const keyActor = (actorId: string | null) => (actorId ? { type: "person" as const, id: actorId } : { type: "operator" as const });

/**
 * Creates a key; throws IntegrationKeyLimitReached past MAX_ACTIVE_INTEGRATION_KEYS (counted
 * under the organisation's row lock, so two concurrent creations cannot both take the last place).
 */
export async function createIntegrationKey(deps: KeyDeps, input: NewIntegrationKey): Promise<{ key: string; row: IntegrationKeyRow }> {
  return withTransaction(deps, async (trx) => {
    const active = await lockAndCountActiveKeys(trx, input.orgId);
    if (active >= MAX_ACTIVE_INTEGRATION_KEYS) throw new IntegrationKeyLimitReached(active);
    const created = await insertIntegrationKey(trx, input);
    await recordAudit(trx, {
      name: "integration_key.created",
      orgId: input.orgId,
      actor: keyActor(input.createdBy),
      target: { type: "integration_key", id: created.row.id },
      details: { name: input.name, scopes: input.scopes, hint: created.row.hint },
    });
    return created;
  });
}

/** Revokes a key of the organisation (requests with it get 401 from now on); undefined when it is not theirs. */
export async function revokeIntegrationKey(deps: KeyDeps, input: { orgId: string; keyId: string; actorId: string }): Promise<IntegrationKeyRow | undefined> {
  return withTransaction(deps, async (trx) => {
    const existing = await lockIntegrationKey(trx, input.orgId, input.keyId);
    if (!existing || existing.revoked_at) return existing;
    const row = await markIntegrationKeyRevoked(trx, existing.id);
    await recordAudit(trx, {
      name: "integration_key.revoked",
      orgId: input.orgId,
      actor: keyActor(input.actorId),
      target: { type: "integration_key", id: row.id },
      details: { name: existing.name, hint: row.hint },
    });
    return row;
  });
}

/** One audit row for a request made with a write scope: which key, what it called, how it ended. */
export async function recordIntegrationWrite(
  deps: KeyDeps,
  key: Pick<IntegrationKeyRow, "id" | "org_id" | "name" | "hint">,
  request: { method: string; path: string; status: number; scope: IntegrationScope; requestId?: string },
): Promise<void> {
  await withTransaction(deps, (trx) =>
    recordAudit(trx, {
      name: "integration_key.write_requested",
      orgId: key.org_id,
      actor: { type: "integration_key", id: key.id, personId: null, name: key.name, hint: key.hint },
      target: { type: "integration_key", id: key.id },
      details: request,
    }),
  );
}
