/**
 * SAML 2.0 sign-in with one provider, with the same people rules and session as OpenID Connect
 * (sso/find-person.ts, sso/session.ts): `startSamlSignIn` sends the browser to the IdP with a
 * signed AuthnRequest (HTTP-Redirect) whose id Redis keeps; `completeSamlSignIn` takes the IdP's
 * POST at our ACS, has node-saml verify it (service-provider.ts), checks the rest
 * (assertion-checks.ts), refuses an assertion seen before (request-cache.ts), finds the person and
 * starts the session. RelayState carries only where to land, one of our own paths. Every refusal
 * ends on the sign-in failure page with its code, nobody signed in.
 */
import { SamlStatusError, type Profile } from "@node-saml/node-saml";
import type { Context } from "koa";
import { findIdentityProvider } from "../../../db/queries/identity";
import { issueRefreshToken } from "../../../db/queries/refresh-tokens";
import { outboundFailureIn } from "../../../lib/outbound/client";
import { refuseUnsafeXml, UnsafeXml } from "../../../lib/saml/safe-xml";
import type { ServerDeps } from "../../deps";
import { mapClaims } from "../sso/claims";
import { SignInFailure } from "../sso/failures";
import { findPerson } from "../sso/find-person";
import { RETURN_PATHS, type PendingSignIn } from "../sso/pending-sign-ins";
import { signInUrlsKnown } from "../sso/public-url-required";
import { renderFailure } from "../sso/result-page";
import { publicOrigin, setRefreshCookie } from "../sso/session";
import { checkAssertion } from "./assertion-checks";
import { readSamlForm } from "./form";
import { rememberAssertion, SamlRequestCache } from "./request-cache";
import { samlClient, samlProviderOf, type SamlProvider } from "./service-provider";
import { rememberSamlSession } from "./sessions";

/** Only our own landing paths come back from RelayState; anything else lands on the tutor. */
export function returnPathOf(relayState: string | null | undefined): PendingSignIn["returnTo"] {
  return (RETURN_PATHS as readonly string[]).includes(relayState ?? "") ? (relayState as PendingSignIn["returnTo"]) : "/";
}

export async function loadSamlProvider(ctx: Context, deps: ServerDeps, providerId: string): Promise<SamlProvider> {
  const provider = samlProviderOf(await findIdentityProvider(deps.db, providerId), deps.config.auth.SECRETS_KEY, publicOrigin(ctx, deps));
  if (!provider.row.enabled) throw new SignInFailure("SIGN_IN_PROVIDER_DISABLED");
  return provider;
}

export async function startSamlSignIn(ctx: Context, deps: ServerDeps, provider: SamlProvider, returnTo: PendingSignIn["returnTo"]): Promise<void> {
  if (!signInUrlsKnown(deps.config)) throw new SignInFailure("SIGN_IN_UNAVAILABLE", "PUBLIC_URL is not set");
  const url = await samlClient(deps.redis, provider).getAuthorizeUrlAsync(returnTo, undefined, {});
  ctx.status = 302;
  ctx.redirect(url);
}

function failureOf(error: unknown): SignInFailure {
  if (error instanceof SignInFailure) return error;
  if (error instanceof UnsafeXml) return new SignInFailure("SIGN_IN_MESSAGE_REFUSED", error.message);
  if (outboundFailureIn(error)) return new SignInFailure("IDP_UNAVAILABLE", String(error));
  if (error instanceof SamlStatusError) return new SignInFailure("SIGN_IN_PROVIDER_REFUSED", error.message);
  return new SignInFailure("SIGN_IN_UNAVAILABLE", error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

/** What the assertion says, in the shape the claim mapping reads (issuer = IdP entity id, subject = NameID, attributes by name). */
function claimsOf(provider: SamlProvider, profile: Profile): Record<string, unknown> {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const email = attributes.email ?? attributes.mail ?? profile.email ?? profile.mail;
  return { ...attributes, ...(email !== undefined ? { email } : {}), iss: provider.config.entity_id, sub: profile.nameID };
}

async function verifiedProfile(deps: ServerDeps, provider: SamlProvider, samlResponse: string): Promise<Profile> {
  const xml = Buffer.from(samlResponse, "base64").toString("utf8");
  refuseUnsafeXml(xml);
  const requests = new SamlRequestCache(deps.redis, provider.row.id);
  const { profile } = await samlClient(deps.redis, provider, requests)
    .validatePostResponseAsync({ SAMLResponse: samlResponse })
    .catch((error: unknown) => {
      // node-saml refuses with plain Errors (signature, audience, times, InResponseTo); the message goes to the log only.
      if (error instanceof SamlStatusError) throw error;
      throw new SignInFailure("SIGN_IN_REJECTED", error instanceof Error ? error.message : String(error));
    });
  if (!profile?.nameID) throw new SignInFailure("SIGN_IN_REJECTED", "no assertion or no NameID");
  const checked = await checkAssertion(xml, profile.getAssertionXml!(), {
    acsUrl: provider.urls.acs,
    allowIdpInitiated: provider.config.allow_idp_initiated,
    requests,
  });
  if (!(await rememberAssertion(deps.redis, provider.row.id, checked.assertionId, checked.notOnOrAfterMs)))
    throw new SignInFailure("SIGN_IN_REPLAYED", `assertion ${checked.assertionId} seen before`);
  return profile;
}

export async function completeSamlSignIn(ctx: Context, deps: ServerDeps, providerId: string): Promise<void> {
  let returnTo: PendingSignIn["returnTo"] = "/";
  try {
    const form = await readSamlForm(ctx);
    returnTo = returnPathOf(form.get("RelayState"));
    const samlResponse = form.get("SAMLResponse");
    if (!samlResponse) throw new SignInFailure("SIGN_IN_REJECTED", "no SAMLResponse");
    const provider = await loadSamlProvider(ctx, deps, providerId);
    const profile = await verifiedProfile(deps, provider, samlResponse);
    // A SAML IdP is the organisation's own directory: the email it asserts is vouched for (the domain rules still apply).
    const mapped = mapClaims(claimsOf(provider, profile), { ...provider.row.claim_mapping, trust_email: true });
    const person = await findPerson(deps.db, provider.row, mapped);
    const issued = await issueRefreshToken(deps.db, {
      orgId: provider.row.org_id,
      userId: person.userId!,
      providerId: provider.row.id,
      ttlSeconds: deps.config.auth.REFRESH_TOKEN_TTL_SECONDS,
    });
    setRefreshCookie(ctx, issued);
    await rememberSamlSession(deps.redis, person.userId!, issued.familyId, profile, deps.config.auth.REFRESH_TOKEN_TTL_SECONDS);
    deps.log.info({ orgId: provider.row.org_id, userId: person.userId, providerId, how: person.how }, "signed in with SAML identity provider");
    ctx.status = 303;
    ctx.redirect(returnTo);
  } catch (error) {
    const failure = failureOf(error);
    const fields = { code: failure.code, detail: failure.detail, providerId };
    if (failure.code === "SIGN_IN_UNAVAILABLE") deps.log.error({ ...fields, err: error }, "SAML sign-in failed");
    else deps.log.warn(fields, "SAML sign-in refused");
    renderFailure(ctx, failure, returnTo);
  }
}
