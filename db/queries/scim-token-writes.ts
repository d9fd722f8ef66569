/**
 * The organisation's SCIM token as written, inside the transaction of commands/scim-token.ts
 * (which records the audit event). Nothing here opens a transaction.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { hashOfScimToken, SCIM_TOKEN_COLUMNS, SCIM_TOKEN_HINT_LENGTH, SCIM_TOKEN_PREFIX, type ScimTokenRow } from "./scim-tokens";

/**
 * Removes the organisation's token and stores a new one, returned once, here. Two rotations at
 * once (a double click) take turns on the organisation's row: the second replaces the first's
 * token instead of failing on the one-token-per-organisation constraint.
 */
export async function replaceScimTokenRow(
  trx: Knex.Transaction,
  input: { orgId: string; actorId: string },
): Promise<{ token: string; row: ScimTokenRow; removed: { id: string; hint: string } | undefined }> {
  const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  await trx("organizations").where({ id: input.orgId }).forUpdate().first("id");
  const removed = await trx("scim_tokens").where({ org_id: input.orgId }).delete().returning(["id", "hint"]);
  const [row] = await trx("scim_tokens")
    .insert({ org_id: input.orgId, token_hash: hashOfScimToken(token).toString("hex"), hint: token.slice(-SCIM_TOKEN_HINT_LENGTH), created_by: input.actorId })
    .returning(SCIM_TOKEN_COLUMNS);
  return { token, row: row as ScimTokenRow, removed: removed[0] };
}

/** Removes the organisation's token; the removed one, or undefined when there was none. */
export async function deleteScimTokenRow(trx: Knex.Transaction, orgId: string): Promise<{ id: string; hint: string } | undefined> {
  const [removed] = await trx("scim_tokens").where({ org_id: orgId }).delete().returning(["id", "hint"]);
  return removed;
}
