/**
 * Identity providers (one per organisation) and the links from a provider's (issuer, subject)
 * to a person. A provider's token finds its person only through a link, never through a claim
 * naming an organisation. The client secret is stored sealed (lib/secret-box.ts); rows read here
 * carry the sealed form and callers that answer the API leave it out.
 */
import { z } from "zod";
import { Refusal } from "../../lib/refusal";
import { domainsVerifiedElsewhere, lockDomainClaims } from "./organisation-domains";
import { revokeRefreshTokensBegunBy } from "./refresh-tokens";
import type { Db } from "../knex";
import type { Knex } from "knex";

/** Which claims carry our fields; unset names fall back to the OpenID standard ones. */
export const claimMappingSchema = z.object({
  email: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100).optional(),
  department: z.string().min(1).max(100).optional(),
  /** The claim listing the person's groups (e.g. `groups`, Entra's `roles`). */
  groups: z.string().min(1).max(100).optional(),
  /**
   * The provider vouches for the email claim without sending `email_verified` (Entra ID, whose
   * `email`/`upn` is the tenant's own directory). Off: an email counts as verified only when it
   * is the standard `email` claim and `email_verified` is true.
   */
  trust_email: z.boolean().optional(),
  /** Members of any of these groups are admins; everyone else an employee. Empty: roles are not synced. */
  admin_groups: z.array(z.string().min(1).max(200)).max(50).optional(),
});
export type ClaimMapping = z.infer<typeof claimMappingSchema>;

export interface IdentityProviderRow {
  id: string;
  org_id: string;
  display_name: string;
  issuer: string;
  client_id: string;
  client_secret_encrypted: string | null;
  api_audience: string | null;
  allowed_domains: string[];
  claim_mapping: ClaimMapping;
  jit_enabled: boolean;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  "id",
  "org_id",
  "display_name",
  "issuer",
  "client_id",
  "client_secret_encrypted",
  "api_audience",
  "allowed_domains",
  "claim_mapping",
  "jit_enabled",
  "enabled",
  "created_at",
  "updated_at",
];

function parseRow(row: Record<string, unknown> | undefined): IdentityProviderRow | undefined {
  if (!row) return undefined;
  // A mapping written by an older release (or by hand) that no longer parses reads as "standard claims".
  const mapping = claimMappingSchema.safeParse(row.claim_mapping ?? {});
  return { ...(row as unknown as IdentityProviderRow), claim_mapping: mapping.success ? mapping.data : {} };
}

/**
 * The organisation's provider read under a lock on its organisation's row: a change that checked
 * the stored secret against it cannot be overtaken by another change committing meanwhile.
 */
export async function lockIdentityProviderOfOrg(trx: Knex.Transaction, orgId: string): Promise<IdentityProviderRow | undefined> {
  await trx("organizations").where({ id: orgId }).forUpdate().first("id");
  return findIdentityProviderOfOrg(trx, orgId);
}

export async function findIdentityProviderOfOrg(db: Db, orgId: string): Promise<IdentityProviderRow | undefined> {
  return parseRow(await db("identity_providers").select(COLUMNS).where({ org_id: orgId }).first());
}

export async function findIdentityProvider(db: Db, providerId: string): Promise<IdentityProviderRow | undefined> {
  return parseRow(await db("identity_providers").select(COLUMNS).where({ id: providerId }).first());
}

/** Every enabled provider with this issuer (several organisations may share one, e.g. Google). */
export async function findIdentityProvidersByIssuer(db: Db, issuer: string): Promise<IdentityProviderRow[]> {
  const rows = await db("identity_providers").select(COLUMNS).where({ issuer, enabled: true });
  return rows.map((row) => parseRow(row)!);
}

/**
 * Every enabled provider, for the API's token check: it keeps them in memory, so a token naming
 * an unknown issuer is refused without a query (docs/security.md, "Identity providers' tokens").
 */
export async function listEnabledIdentityProviders(db: Db): Promise<IdentityProviderRow[]> {
  const rows = await db("identity_providers").select(COLUMNS).where({ enabled: true });
  return rows.map((row) => parseRow(row)!);
}

export interface IdentityProviderSettings {
  display_name: string;
  issuer: string;
  client_id: string;
  /** Sealed; `undefined` keeps the stored one, `null` removes it. */
  client_secret_encrypted?: string | null;
  api_audience: string | null;
  allowed_domains: string[];
  claim_mapping: ClaimMapping;
  jit_enabled: boolean;
  enabled: boolean;
}

/**
 * Stores the organisation's provider. Its `allowed_domains` may list domains the organisation has
 * not verified (organisation_domains.ts): they do nothing until verified. One another organisation
 * has verified is refused (`409 DOMAIN_CLAIMED`, checked under the domain claims' lock), since it
 * could never be this organisation's. Turning a provider off ends the browser sessions it began.
 */
export async function saveIdentityProvider(db: Db, orgId: string, settings: IdentityProviderSettings): Promise<IdentityProviderRow> {
  if (!db.isTransaction) return db.transaction((trx) => saveIdentityProvider(trx, orgId, settings));
  const domains = [...new Set(settings.allowed_domains.map((d) => d.toLowerCase()))];
  await lockDomainClaims(db);
  const taken = await domainsVerifiedElsewhere(db, orgId, domains);
  if (taken.length > 0) {
    throw new Refusal(
      "conflict",
      "DOMAIN_CLAIMED",
      `${taken.join(", ")} is verified by another organisation; a domain signs people in to one organisation only`,
    );
  }
  const values = { ...settings, allowed_domains: domains, claim_mapping: JSON.stringify(settings.claim_mapping) };
  const [row] = await db("identity_providers")
    .insert({ org_id: orgId, ...values })
    .onConflict("org_id")
    .merge({ ...values, updated_at: db.fn.now() })
    .returning(COLUMNS);
  if (!settings.enabled) await revokeRefreshTokensBegunBy(db, row.id as string);
  return parseRow(row)!;
}

/** Removes the provider and ends the browser sessions it began (its links go with it by cascade). */
export async function deleteIdentityProvider(db: Db, orgId: string): Promise<boolean> {
  const provider = await db("identity_providers").where({ org_id: orgId }).first("id");
  if (!provider) return false;
  // Before the delete: the refresh rows' provider_id is set to null by it.
  await revokeRefreshTokensBegunBy(db, provider.id as string);
  return (await db("identity_providers").where({ id: provider.id }).delete()) > 0;
}

export interface IdentityLinkRow {
  id: string;
  org_id: string;
  user_id: string;
  provider_id: string;
  issuer: string;
  subject: string;
}

/** The person an (issuer, subject) pair was linked to, whatever organisation that is. */
export async function findIdentityLink(db: Db, issuer: string, subject: string): Promise<IdentityLinkRow | undefined> {
  return db("identity_links").select("id", "org_id", "user_id", "provider_id", "issuer", "subject").where({ issuer, subject }).first();
}

/** Links a person once; a second link of the same (issuer, subject) keeps the first. */
export async function linkIdentity(db: Db, link: Omit<IdentityLinkRow, "id">): Promise<IdentityLinkRow> {
  await db("identity_links").insert(link).onConflict(["issuer", "subject"]).ignore();
  return (await findIdentityLink(db, link.issuer, link.subject))!;
}

export async function touchIdentityLink(db: Db, linkId: string): Promise<void> {
  await db("identity_links").where({ id: linkId }).update({ last_sign_in_at: db.fn.now() });
}

export async function deleteIdentityLinksOfUser(db: Db, orgId: string, userId: string): Promise<number> {
  return db("identity_links").where({ org_id: orgId, user_id: userId }).delete();
}

/** The settings as the API shows them: everything but the sealed secret, which is only said to be set. */
function auditView(row: IdentityProviderRow | undefined): Record<string, unknown> | null {
  if (!row) return null;
  const { client_secret_encrypted, created_at: _created, updated_at: _updated, ...rest } = row;
  return { ...rest, client_secret_set: client_secret_encrypted !== null };
}

export interface IdentityProviderAudit {
  action: "identity_provider.create" | "identity_provider.update" | "identity_provider.delete";
  actor: { via: "api" | "cli"; userId: string | null };
  before: IdentityProviderRow | undefined;
  after: IdentityProviderRow | undefined;
}

/** The audit row of a provider change, in the organisation's own log (before/after without the secret); inside the change's transaction. */
export async function auditIdentityProviderChange(trx: Db, entry: IdentityProviderAudit): Promise<void> {
  const row = entry.after ?? entry.before!;
  await trx("audit_log").insert({
    org_id: row.org_id,
    actor_id: entry.actor.userId,
    action: entry.action,
    target_type: "identity_provider",
    target_id: row.id,
    before: JSON.stringify(auditView(entry.before)),
    after: entry.after ? JSON.stringify(auditView(entry.after)) : null,
    details: JSON.stringify({ via: entry.actor.via }),
  });
}

/** What the sign-in button needs of an enabled provider. */
export interface SignInProvider {
  id: string;
  display_name: string;
}

/**
 * The enabled provider that signs in this email domain: one that lists it, of the organisation
 * that has verified it (one at most). A disabled provider, or a domain listed but not verified by
 * the provider's own organisation, finds nothing (review F2: no phishing button for a domain
 * someone else listed).
 */
export async function findSignInProvidersByDomain(db: Db, domain: string): Promise<SignInProvider[]> {
  const lower = domain.toLowerCase();
  return db("identity_providers as p")
    .join("organisation_domains as d", function () {
      this.on("d.org_id", "p.org_id").andOnVal("d.status", "verified");
    })
    .select("p.id", "p.display_name")
    .where({ "p.enabled": true, "d.domain": lower })
    .whereRaw("? = ANY(p.allowed_domains)", [lower])
    .orderBy("p.display_name")
    .limit(5);
}

export async function findSignInProvidersByOrgSlug(db: Db, slug: string): Promise<SignInProvider[]> {
  return db("identity_providers as p")
    .join("organizations as o", "o.id", "p.org_id")
    .select("p.id", "p.display_name")
    .where({ "o.slug": slug, "p.enabled": true });
}

/** The fields a sign-in may set on a person from the provider's claims; unset ones are left alone. */
export interface ClaimedProfile {
  name?: string;
  department?: string | null;
  role?: "admin" | "employee";
}

export interface ProvisionedUser {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: "admin" | "employee";
  is_active: boolean;
}

interface JitInput {
  orgId: string;
  email: string;
  profile: ClaimedProfile;
  link: Omit<IdentityLinkRow, "id" | "org_id" | "user_id">;
}

/**
 * Creates the employee a first sign-in stands for (just-in-time provisioning), with its link, in
 * one transaction with its audit row. A concurrent first sign-in of the same person loses on the
 * unique email and is answered with the row the winner created.
 */
export async function provisionJitUser(db: Db, input: JitInput): Promise<ProvisionedUser> {
  try {
    return await insertJitUser(db, input);
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    const winner: ProvisionedUser | undefined = await db("users")
      .select("id", "org_id", "email", "name", "role", "is_active")
      .where({ org_id: input.orgId, email: input.email.toLowerCase() })
      // A person whose erasure was asked for is nobody's winner: no identity is linked to their row.
      .whereNull("erasure_requested_at")
      .first();
    if (!winner) throw error;
    await linkIdentity(db, { ...input.link, org_id: input.orgId, user_id: winner.id });
    return winner;
  }
}

const UNIQUE_VIOLATION = "23505";

async function insertJitUser(db: Db, input: JitInput): Promise<ProvisionedUser> {
  return db.transaction(async (trx) => {
    const [user] = await trx("users")
      .insert({
        org_id: input.orgId,
        email: input.email.toLowerCase(),
        name: input.profile.name ?? input.email.split("@")[0],
        department: input.profile.department ?? null,
        role: input.profile.role ?? "employee",
        provisioned_via: "jit",
      })
      .returning(["id", "org_id", "email", "name", "role", "is_active"]);
    await trx("identity_links").insert({ ...input.link, org_id: input.orgId, user_id: user.id });
    await trx("audit_log").insert({
      org_id: input.orgId,
      actor_id: user.id,
      action: "user.jit_provision",
      target_type: "user",
      target_id: user.id,
      after: JSON.stringify({ email: user.email, name: user.name, role: user.role, department: input.profile.department ?? null }),
      details: JSON.stringify({ issuer: input.link.issuer, provider_id: input.link.provider_id }),
    });
    return user as ProvisionedUser;
  });
}

/** Applies what the provider says now (name, department, role) on every sign-in; audits a change of role. */
export async function syncUserFromClaims(db: Db, orgId: string, userId: string, profile: ClaimedProfile): Promise<void> {
  const changes = Object.fromEntries(Object.entries(profile).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length === 0) return;
  await db.transaction(async (trx) => {
    const before = await trx("users").select("role").where({ id: userId, org_id: orgId }).first();
    await trx("users").where({ id: userId, org_id: orgId }).update(changes);
    if (profile.role && before && before.role !== profile.role) {
      await trx("audit_log").insert({
        org_id: orgId,
        actor_id: null,
        action: "user.role_from_identity_provider",
        target_type: "user",
        target_id: userId,
        before: JSON.stringify({ role: before.role }),
        after: JSON.stringify({ role: profile.role }),
      });
    }
  });
}
