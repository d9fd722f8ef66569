/**
 * What an identity provider's claims say about a person, read through the organisation's claim
 * mapping (db/queries/identity.ts `claimMappingSchema`): unset names fall back to the OpenID
 * standard ones. No I/O, so the rules are unit-tested on their own.
 */
import type { ClaimMapping, ClaimedProfile } from "../../../db/queries/identity";
import { isLanguageCode } from "../../../lib/language";

export interface MappedClaims {
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  /** What a sign-in sets on the person; a field the provider did not send stays undefined (left alone). */
  profile: ClaimedProfile;
  groups: string[];
}

const NAME_MAX = 200;

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, NAME_MAX) : undefined;
}

/** A group claim may be a list or, from some providers, one string. */
function list(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

export function mapClaims(claims: Record<string, unknown>, mapping: ClaimMapping): MappedClaims {
  const emailClaim = mapping.email ?? "email";
  const email = text(claims[emailClaim])?.toLowerCase();
  const groups = list(claims[mapping.groups ?? "groups"]);
  const adminGroups = mapping.admin_groups ?? [];
  const profile: ClaimedProfile = {};
  const name = text(claims[mapping.name ?? "name"]);
  if (name) profile.name = name;
  const departmentClaim = mapping.department ?? "department";
  if (departmentClaim in claims) profile.department = text(claims[departmentClaim]) ?? null;
  // OpenID Connect's `locale` is a BCP 47 tag ("fr-CA", some providers "fr_CA"): its language is what the product keeps.
  const language = text(claims.locale)?.toLowerCase().split(/[-_]/)[0];
  if (language && isLanguageCode(language)) profile.locale = language;
  // Without admin groups the provider does not decide roles: an admin made in the console stays one.
  if (adminGroups.length > 0) profile.role = groups.some((group) => adminGroups.includes(group)) ? "admin" : "employee";
  return {
    issuer: String(claims.iss ?? ""),
    subject: String(claims.sub ?? ""),
    ...(email ? { email } : {}),
    // `email_verified` speaks of the standard `email` claim only, never of a remapped one (a
    // username a person may choose); some providers (Cognito, older ADFS) send it as a string.
    emailVerified: mapping.trust_email === true || (emailClaim === "email" && (claims.email_verified === true || claims.email_verified === "true")),
    profile,
    groups,
  };
}

/**
 * Whether the ID token lacks a claim the mapping reads, so sign-in should ask the UserInfo endpoint
 * too: OpenID Connect Core §5.4 lets a provider return `email` and `profile` claims there only, and
 * a stock certified provider does so by default. Groups count only when admin groups decide roles.
 */
export function claimsMissing(claims: Record<string, unknown>, mapping: ClaimMapping): boolean {
  const needed = [mapping.email ?? "email", mapping.name ?? "name"];
  if ((mapping.admin_groups ?? []).length > 0) needed.push(mapping.groups ?? "groups");
  if (mapping.department) needed.push(mapping.department);
  return needed.some((claim) => !(claim in claims));
}

/**
 * The ID token's claims completed by UserInfo's: what the ID token says about the sign-in itself
 * (issuer, subject, audience, nonce, times) always wins; UserInfo fills in the person.
 */
export function withUserInfo(idToken: Record<string, unknown>, userInfo: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...userInfo, ...idToken };
  // `email_verified` vouches for the email of its own source: UserInfo's flag never vouches for the ID token's address.
  if ("email" in idToken && !("email_verified" in idToken)) delete merged.email_verified;
  return merged;
}

export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  return at > 0 && at < email.length - 1 ? email.slice(at + 1).toLowerCase() : undefined;
}

/** Exact domains only: `example.com` does not admit `mail.example.com` nor `example.com.evil`. */
export function domainAllowed(email: string, allowedDomains: readonly string[]): boolean {
  const domain = emailDomain(email);
  return domain !== undefined && allowedDomains.some((allowed) => allowed.toLowerCase() === domain);
}
