/**
 * The Authorization Code flow with PKCE (S256), state and nonce, through openid-client (never by
 * hand): `start` sends the browser to the provider, `complete` takes the callback, has
 * openid-client exchange the code and validate the ID token (issuer, audience, nonce, signature,
 * expiry), finds the person (find-person.ts) and starts our own session (session.ts). Nothing it
 * hands the browser carries a token in a URL: the session is a cookie and a 303 to the page.
 */
import type { Context } from "koa";
import * as oidc from "openid-client";
import { outboundFailureIn } from "../../../lib/outbound/client";
import { findIdentityProvider, isOidcProvider, type OidcProviderRow } from "../../../db/queries/identity";
import type { ServerDeps } from "../../deps";
import { claimsMissing, mapClaims, withUserInfo } from "./claims";
import { SignInFailure } from "./failures";
import { findPerson } from "./find-person";
import { signInUrlsKnown } from "./public-url-required";
import type { PendingSignIn } from "./pending-sign-ins";
import { renderFailure, renderTestResult } from "./result-page";
import { ssoOf } from "./services";
import { publicOrigin, startSession } from "./session";

export const CALLBACK_PATH = "/api/v1/auth/oidc/callback";
const SCOPES = "openid email profile";

async function configurationOf(deps: ServerDeps, provider: OidcProviderRow): Promise<oidc.Configuration> {
  try {
    return await ssoOf(deps).clients.configurationFor(provider);
  } catch (error) {
    deps.log.warn({ providerId: provider.id, err: error }, "identity provider discovery failed");
    throw new SignInFailure("IDP_UNAVAILABLE", String(error));
  }
}

/** Sends the browser to the provider; `mode: "test"` makes the callback report instead of signing in. */
export async function startSignIn(
  ctx: Context,
  deps: ServerDeps,
  provider: OidcProviderRow,
  returnTo: PendingSignIn["returnTo"],
  mode: PendingSignIn["mode"],
): Promise<void> {
  if (!signInUrlsKnown(deps.config)) {
    deps.log.error({ providerId: provider.id }, "single sign-on refused: PUBLIC_URL is not set and NODE_ENV=production");
    throw new SignInFailure("SIGN_IN_UNAVAILABLE", "PUBLIC_URL is not set");
  }
  const config = await configurationOf(deps, provider);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const redirectUri = `${publicOrigin(ctx, deps)}${CALLBACK_PATH}`;
  await ssoOf(deps).pending.begin(ctx, state, { providerId: provider.id, verifier, nonce, returnTo, mode, redirectUri });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SCOPES,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  ctx.status = 302;
  ctx.redirect(url.href);
}

/**
 * Maps what went wrong to a page: a provider that hangs or cannot be reached is an outage; what
 * openid-client refused (the code, the ID token, the provider's own error) is a rejected answer;
 * anything else is on our side (the database, Redis) and says to try again.
 */
function failureOf(error: unknown): SignInFailure {
  if (error instanceof SignInFailure) return error;
  if (outboundFailureIn(error)) return new SignInFailure("IDP_UNAVAILABLE", String(error));
  if (error instanceof oidc.AuthorizationResponseError)
    return new SignInFailure("SIGN_IN_PROVIDER_REFUSED", `${error.error}: ${error.error_description ?? ""}`);
  if (error instanceof oidc.ClientError || error instanceof oidc.ResponseBodyError || error instanceof oidc.WWWAuthenticateChallengeError)
    return new SignInFailure("SIGN_IN_REJECTED", `${error.name}: ${error.message}`);
  return new SignInFailure("SIGN_IN_UNAVAILABLE", error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

/**
 * The claims sign-in maps: the ID token's, completed from the UserInfo endpoint when it lacks one
 * the mapping reads. openid-client refuses a UserInfo answer whose `sub` is not the ID token's.
 */
async function completedClaims(
  config: oidc.Configuration,
  provider: OidcProviderRow,
  idClaims: oidc.IDToken,
  accessToken: string,
): Promise<Record<string, unknown>> {
  if (!config.serverMetadata().userinfo_endpoint || !claimsMissing(idClaims, provider.claim_mapping)) return idClaims;
  const userInfo = await oidc.fetchUserInfo(config, accessToken, idClaims.sub);
  return withUserInfo(idClaims, userInfo);
}

/** The provider's callback: ends signed in (303 to the page) or on a page saying why not. */
export async function completeSignIn(ctx: Context, deps: ServerDeps, query: { state?: string }): Promise<void> {
  let pending: PendingSignIn | null = null;
  try {
    pending = query.state ? await ssoOf(deps).pending.finish(ctx, query.state) : null;
    if (!pending) throw new SignInFailure("SIGN_IN_STATE_INVALID");
    const provider = await findIdentityProvider(deps.db, pending.providerId);
    if (!provider || !isOidcProvider(provider) || (!provider.enabled && pending.mode !== "test")) throw new SignInFailure("SIGN_IN_PROVIDER_DISABLED");
    const config = await configurationOf(deps, provider);
    const currentUrl = new URL(`${pending.redirectUri}?${ctx.querystring}`);
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: pending.verifier,
      expectedState: query.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new SignInFailure("SIGN_IN_REJECTED", "no ID token");
    const claims = await completedClaims(config, provider, idClaims, tokens.access_token);
    const mapped = mapClaims(claims, provider.claim_mapping);
    if (pending.mode === "test") {
      const outcome = await findPerson(deps.db, provider, mapped, { dryRun: true }).catch((error: unknown) => failureOf(error));
      renderTestResult(ctx, claims, mapped, outcome);
      return;
    }
    const person = await findPerson(deps.db, provider, mapped);
    await startSession(ctx, deps, { orgId: provider.org_id, userId: person.userId!, providerId: provider.id });
    deps.log.info({ orgId: provider.org_id, userId: person.userId, providerId: provider.id, how: person.how }, "signed in with identity provider");
    ctx.status = 303;
    ctx.redirect(pending.returnTo);
  } catch (error) {
    const failure = failureOf(error);
    // The detail may name another organisation or quote the provider: the log has it, the page does not.
    const fields = { code: failure.code, detail: failure.detail, providerId: pending?.providerId };
    if (failure.code === "SIGN_IN_UNAVAILABLE") deps.log.error({ ...fields, err: error }, "single sign-on failed");
    else deps.log.warn(fields, "single sign-on refused");
    renderFailure(ctx, failure, pending?.returnTo ?? "/");
  }
}

/** Where the browser goes to end the provider's session too (RP-initiated logout), if the provider has such an endpoint. */
export async function endSessionUrl(ctx: Context, deps: ServerDeps, providerId: string, returnTo: string): Promise<string | null> {
  const provider = await findIdentityProvider(deps.db, providerId);
  if (!provider || !isOidcProvider(provider)) return null;
  try {
    const config = await ssoOf(deps).clients.configurationFor(provider);
    if (!config.serverMetadata().end_session_endpoint) return null;
    // client_id and where to come back: never the ID token, which would put a token in a URL.
    return oidc.buildEndSessionUrl(config, { client_id: provider.client_id, post_logout_redirect_uri: `${publicOrigin(ctx, deps)}${returnTo}` }).href;
  } catch {
    return null;
  }
}
