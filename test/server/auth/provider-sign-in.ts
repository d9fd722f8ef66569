/**
 * A real access token from the test identity provider, the way an API client gets one: the
 * Authorization Code flow with PKCE through openid-client, the provider's own login form filled
 * in over fetch with a cookie jar (test/support/sso.ts). The redirect URI points at a closed port:
 * the code is read from the provider's `Location` header and never delivered anywhere.
 */
import * as client from "openid-client";
import { CookieJar, followSignIn } from "../../support/sso";

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** The API to ask an access token for (RFC 8707 `resource`): without it the provider issues one for its UserInfo endpoint. */
  resource?: string;
}

/** Signs `email` in at the provider and exchanges the code; returns the JWT access token. */
export async function providerAccessToken(issuer: string, app: ProviderClient, email: string, password: string): Promise<string> {
  return (await providerTokens(issuer, app, email, password)).access;
}

/** The same sign-in, returning both the access token and the ID token the provider issued to the client. */
export async function providerTokens(issuer: string, app: ProviderClient, email: string, password: string): Promise<{ access: string; id: string }> {
  const config = await client.discovery(new URL(issuer), app.clientId, app.clientSecret, undefined, { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const start = client.buildAuthorizationUrl(config, {
    redirect_uri: app.redirectUri,
    scope: "openid email profile",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    ...(app.resource ? { resource: app.resource } : {}),
  });
  const back = await followSignIn(new CookieJar(), start, { email, password }, (url) => url.href.startsWith(app.redirectUri));
  const tokens = await client.authorizationCodeGrant(
    config,
    back,
    { pkceCodeVerifier: verifier, expectedState: state },
    app.resource ? { resource: app.resource } : undefined,
  );
  return { access: tokens.access_token, id: tokens.id_token! };
}
