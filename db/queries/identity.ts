/**
 * Identity providers (one per organisation) and the links from a provider's (issuer, subject)
 * to a person. A provider's token finds its person only through a link, never through a claim
 * naming an organisation. The client secret is stored sealed (lib/secret-box.ts); rows read here
 * carry the sealed form and callers that answer the API leave it out.
 */
import { z } from "zod";
import type { Db } from "../knex";

/** Which claims carry our fields; unset names fall back to the OpenID standard ones. */
export const claimMappingSchema = z.object({
  email: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100).optional(),
  department: z.string().min(1).max(100).optional(),
  /** The claim listing the person's groups (e.g. `groups`, Entra's `roles`). */
  groups: z.string().min(1).max(100).optional(),
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

export async function saveIdentityProvider(db: Db, orgId: string, settings: IdentityProviderSettings): Promise<IdentityProviderRow> {
  const values = { ...settings, allowed_domains: settings.allowed_domains.map((d) => d.toLowerCase()), claim_mapping: JSON.stringify(settings.claim_mapping) };
  const [row] = await db("identity_providers")
    .insert({ org_id: orgId, ...values })
    .onConflict("org_id")
    .merge({ ...values, updated_at: db.fn.now() })
    .returning(COLUMNS);
  return parseRow(row)!;
}

export async function deleteIdentityProvider(db: Db, orgId: string): Promise<boolean> {
  return (await db("identity_providers").where({ org_id: orgId }).delete()) > 0;
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
