/**
 * The ways in the sign-in page offers, from a work email or an organisation's sign-in link:
 *
 * - the email's domain is verified by an organisation and one of its enabled providers lists it:
 *   that provider (one at most: commands/identity-provider-rules.ts);
 * - the domain is verified by an organisation but none of its providers lists it: every enabled
 *   provider of that organisation, to choose from;
 * - `?org=<slug>`: every enabled provider of that organisation;
 * - anything else (an unknown, pending or only-listed domain, an organisation with no enabled
 *   provider): the same answer, an empty list, whatever the reason.
 *
 * Only a verified domain answers, so the lookup never lists the providers of an organisation the
 * address does not belong to.
 */
import type { Db } from "../../../db/knex";
import {
  findSignInProvidersByDomain,
  findSignInProvidersByOrgSlug,
  findSignInProvidersOfDomainOwner,
  type IdentityProtocol,
  type SignInProvider,
} from "../../../db/queries/identity";
import { samlPaths } from "../../../lib/saml/sp-urls";
import { emailDomain } from "./claims";

export type SignInProtocol = IdentityProtocol;

export interface SignInChoice {
  id: string;
  display_name: string;
  protocol: SignInProtocol;
  start_url: string;
}

export interface SignInChoices {
  providers: SignInChoice[];
}

/** Where the browser starts signing in with a provider of this protocol. */
export function startUrlOf(protocol: SignInProtocol, providerId: string): string {
  return protocol === "saml" ? samlPaths(providerId).start : `/api/v1/auth/oidc/${providerId}/start`;
}

function choices(found: readonly SignInProvider[]): SignInChoices {
  return {
    providers: found.map((provider) => {
      const { id, display_name, protocol } = provider;
      return { id, display_name, protocol, start_url: startUrlOf(protocol, id) };
    }),
  };
}

export async function findSignInChoices(db: Db, query: { email?: string; org?: string }): Promise<SignInChoices> {
  const domain = query.email ? emailDomain(query.email) : undefined;
  if (domain) {
    const listed = await findSignInProvidersByDomain(db, domain);
    return choices(listed.length > 0 ? listed : await findSignInProvidersOfDomainOwner(db, domain));
  }
  return choices(query.org ? await findSignInProvidersByOrgSlug(db, query.org) : []);
}
