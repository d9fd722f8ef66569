/**
 * A real access token from the test identity provider, the way an API client gets one: the
 * Authorization Code flow with PKCE through openid-client, the provider's own login form filled
 * in over fetch with a cookie jar. The redirect URI points at a closed port: the code is read from
 * the provider's `Location` header and never delivered anywhere.
 */
import * as client from "openid-client";

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** Signs `email` in at the provider and exchanges the code; returns the JWT access token. */
export async function providerAccessToken(issuer: string, app: ProviderClient, email: string, password: string): Promise<string> {
  const config = await client.discovery(new URL(issuer), app.clientId, app.clientSecret, undefined, { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const start = client.buildAuthorizationUrl(config, {
    redirect_uri: app.redirectUri,
    scope: "openid email profile",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  });
  const jar = new CookieJar();
  let next: { url: URL; form?: URLSearchParams } = { url: start };
  for (let step = 0; step < 12; step += 1) {
    const response = await fetch(next.url, {
      method: next.form ? "POST" : "GET",
      body: next.form,
      headers: { cookie: jar.header(), ...(next.form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      redirect: "manual",
    });
    jar.take(response);
    const location = response.headers.get("location");
    if (location) {
      const target = new URL(location, next.url);
      if (target.href.startsWith(app.redirectUri)) {
        const tokens = await client.authorizationCodeGrant(config, target, { pkceCodeVerifier: verifier, expectedState: state });
        return tokens.access_token;
      }
      next = { url: target };
      continue;
    }
    const page = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    if (response.status !== 200 || !action || /id="error"/.test(page)) throw new Error(`provider sign-in stopped at ${next.url.pathname}: ${response.status}`);
    next = { url: new URL(action, next.url), form: new URLSearchParams({ email, password }) };
  }
  throw new Error("provider sign-in did not reach the redirect URI");
}
