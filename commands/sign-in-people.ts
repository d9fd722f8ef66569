/**
 * What a sign-in through the organisation's identity provider writes about a person, decided by
 * server/auth/sso/find-person.ts: the first sign-in of someone the organisation lets the provider
 * create (just-in-time provisioning, `person.provisioned`), a link made by a vouched-for email,
 * and on every sign-in the name, department and role the provider states now (`person.role_synced`
 * when the role changed; a name or department alone is the provider's to keep, not an event).
 */
import { recordAudit } from "../db/queries/audit-log";
import type { ClaimedProfile, IdentityLinkRow, ProvisionedUser } from "../db/queries/identity";
import {
  findJitWinner,
  insertIdentityLink,
  insertJitPerson,
  linkIdentity,
  touchIdentityLink,
  updatePersonFromClaims,
} from "../db/queries/identity-link-writes";
import type { CommandDeps } from "./deps";
import { type Transaction, withTransaction } from "./transaction";

type SignInDeps = Pick<CommandDeps, "db">;

const UNIQUE_VIOLATION = "23505";

async function syncFromClaims(trx: Transaction, orgId: string, userId: string, profile: ClaimedProfile): Promise<void> {
  const changes = Object.fromEntries(Object.entries(profile).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length === 0) return;
  const roleBefore = await updatePersonFromClaims(trx, orgId, userId, changes);
  if (!profile.role || roleBefore === undefined || roleBefore === profile.role) return;
  await recordAudit(trx, {
    name: "person.role_synced",
    orgId,
    actor: { type: "system" },
    target: { type: "user", id: userId },
    before: { role: roleBefore },
    after: { role: profile.role },
  });
}

/** A linked person signs in again: the link's last sign-in, and what the provider says of them now. */
export async function signInLinkedPerson(deps: SignInDeps, request: { orgId: string; userId: string; linkId: string; profile: ClaimedProfile }): Promise<void> {
  await withTransaction(deps, async (trx) => {
    await touchIdentityLink(trx, request.linkId);
    await syncFromClaims(trx, request.orgId, request.userId, request.profile);
  });
}

/** An existing account found by its vouched-for email: linked once, then updated from the claims. */
export async function linkPersonByEmail(deps: SignInDeps, request: { link: Omit<IdentityLinkRow, "id">; profile: ClaimedProfile }): Promise<void> {
  await withTransaction(deps, async (trx) => {
    await linkIdentity(trx, request.link);
    await syncFromClaims(trx, request.link.org_id, request.link.user_id, request.profile);
  });
}

export interface JitRequest {
  orgId: string;
  email: string;
  profile: ClaimedProfile;
  link: Omit<IdentityLinkRow, "id" | "org_id" | "user_id">;
}

/**
 * Creates the employee a first sign-in stands for, with its link and its audit row. A concurrent
 * first sign-in of the same person loses on the unique email and is answered with the row the
 * winner created.
 */
export async function provisionPersonAtSignIn(deps: SignInDeps, request: JitRequest): Promise<ProvisionedUser> {
  try {
    return await withTransaction(deps, async (trx) => {
      const user = await insertJitPerson(trx, request.orgId, request.email, request.profile);
      await insertIdentityLink(trx, { ...request.link, org_id: request.orgId, user_id: user.id });
      await recordAudit(trx, {
        name: "person.provisioned",
        orgId: request.orgId,
        actor: { type: "person", id: user.id },
        target: { type: "user", id: user.id },
        after: { email: user.email, name: user.name, role: user.role, department: request.profile.department ?? null },
        details: { issuer: request.link.issuer, provider_id: request.link.provider_id },
      });
      return user;
    });
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    const winner = await findJitWinner(deps.db, request.orgId, request.email);
    if (!winner) throw error;
    await linkIdentity(deps.db, { ...request.link, org_id: request.orgId, user_id: winner.id });
    return winner;
  }
}
