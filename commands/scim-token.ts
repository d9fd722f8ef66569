/**
 * An admin creates, rotates (`scim.token.created`, `.rotated`) or revokes (`scim.token.revoked`)
 * the organisation's SCIM token; SCIM calls with the old one get 401 from then on.
 */
import { recordAudit } from "../db/queries/audit-log";
import { deleteScimTokenRow, replaceScimTokenRow } from "../db/queries/scim-token-writes";
import type { ScimTokenRow } from "../db/queries/scim-tokens";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

type TokenDeps = Pick<CommandDeps, "db">;

/** Creates the organisation's token, replacing any previous one; the token is returned once, here. */
export async function replaceScimToken(
  deps: TokenDeps,
  input: { orgId: string; actorId: string },
): Promise<{ token: string; row: ScimTokenRow; rotated: boolean }> {
  return withTransaction(deps, async (trx) => {
    const { token, row, removed } = await replaceScimTokenRow(trx, input);
    await recordAudit(trx, {
      name: removed ? "scim.token.rotated" : "scim.token.created",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "scim_token", id: row.id },
      before: removed ? { id: removed.id, hint: removed.hint } : null,
      after: { id: row.id, hint: row.hint },
    });
    return { token, row, rotated: removed !== undefined };
  });
}

/** Removes the token; false when there was none. */
export async function revokeScimToken(deps: TokenDeps, input: { orgId: string; actorId: string }): Promise<boolean> {
  return withTransaction(deps, async (trx) => {
    const removed = await deleteScimTokenRow(trx, input.orgId);
    if (!removed) return false;
    await recordAudit(trx, {
      name: "scim.token.revoked",
      orgId: input.orgId,
      actor: { type: "person", id: input.actorId },
      target: { type: "scim_token", id: removed.id },
      before: { id: removed.id, hint: removed.hint },
    });
    return true;
  });
}
