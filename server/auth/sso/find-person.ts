/**
 * Who a verified ID token is, in the organisation whose provider signed it: the stored link of
 * (issuer, subject) first; else that organisation's account with the same email, linked now,
 * only if the provider vouches for the email and its domain is allowed and verified for the
 * organisation (organisation_domains); else a new employee
 * when the organisation allows just-in-time provisioning; else nobody. A link or an email that
 * belongs to another organisation, or a link another provider made, never signs anyone in here,
 * even when both use the same issuer. A dry run (the console's test sign-in) decides the same without writing.
 */
import { linkPersonByEmail, provisionPersonAtSignIn, signInLinkedPerson } from "../../../commands/sign-in-people";
import { findIdentityLink, type IdentityProviderRow } from "../../../db/queries/identity";
import { findUser, findUserByEmail } from "../../../db/queries/users";
import type { Db } from "../../../db/knex";
import { isDomainVerifiedFor } from "../../../db/queries/organisation-domains";
import { domainAllowed, emailDomain, type MappedClaims } from "./claims";
import { SignInFailure } from "./failures";

export interface FoundPerson {
  /** Null only in a dry run that would create the person. */
  userId: string | null;
  email: string;
  role: "admin" | "employee";
  how: "linked" | "matched-by-email" | "created-just-in-time";
}

export async function findPerson(db: Db, provider: IdentityProviderRow, claims: MappedClaims, { dryRun = false } = {}): Promise<FoundPerson> {
  const link = await findIdentityLink(db, claims.issuer, claims.subject);
  if (link) {
    if (link.org_id !== provider.org_id) throw new SignInFailure("WRONG_ORGANISATION", `linked in organisation ${link.org_id}`);
    // Two providers of one organisation may share an issuer (two Entra apps in one tenant): the
    // link answers only to the provider that made it, or one provider would sign in the other's
    // people past its own allowed domains. Refused, never re-linked: the person's provider stays theirs.
    if (link.provider_id !== provider.id) throw new SignInFailure("LINKED_TO_ANOTHER_PROVIDER", `linked through provider ${link.provider_id}`);
    const user = await findUser(db, link.org_id, link.user_id);
    if (!user) throw new SignInFailure("NO_ACCOUNT");
    if (!user.is_active) throw new SignInFailure("ACCOUNT_DEACTIVATED");
    if (!dryRun) {
      await signInLinkedPerson({ db }, { orgId: user.org_id, userId: user.id, linkId: link.id, profile: claims.profile });
    }
    return { userId: user.id, email: user.email, role: claims.profile.role ?? user.role, how: "linked" };
  }

  const email = claims.email;
  if (!email) throw new SignInFailure("EMAIL_MISSING");
  if (!domainAllowed(email, provider.allowed_domains)) throw new SignInFailure("DOMAIN_NOT_ALLOWED");
  // Listed is not enough: only a domain the organisation proved (or the operator approved) signs
  // people in by email, matched or created (review F2).
  if (!(await isDomainVerifiedFor(db, provider.org_id, emailDomain(email)!))) throw new SignInFailure("DOMAIN_NOT_VERIFIED");
  if (!claims.emailVerified) throw new SignInFailure("EMAIL_NOT_VERIFIED");
  const linkFields = { provider_id: provider.id, issuer: claims.issuer, subject: claims.subject };

  const existing = await findUserByEmail(db, email);
  if (existing) {
    if (existing.org_id !== provider.org_id) throw new SignInFailure("WRONG_ORGANISATION", `email registered in organisation ${existing.org_id}`);
    if (!existing.is_active) throw new SignInFailure("ACCOUNT_DEACTIVATED");
    if (!dryRun) {
      await linkPersonByEmail({ db }, { link: { ...linkFields, org_id: existing.org_id, user_id: existing.id }, profile: claims.profile });
    }
    return { userId: existing.id, email, role: claims.profile.role ?? existing.role, how: "matched-by-email" };
  }

  if (!provider.jit_enabled) throw new SignInFailure("NO_ACCOUNT");
  if (dryRun) return { userId: null, email, role: claims.profile.role ?? "employee", how: "created-just-in-time" };
  const created = await provisionPersonAtSignIn({ db }, { orgId: provider.org_id, email, profile: claims.profile, link: linkFields });
  return { userId: created.id, email, role: created.role, how: "created-just-in-time" };
}
