/**
 * A SAML sign-in followed hop by hop with the cookie jar (test/support/sso.ts), as a browser does
 * with SimpleSAMLphp: our start URL, the IdP's redirects, its username/password form, then its
 * auto-submitting form that posts the SAMLResponse to our ACS. Returns our ACS's answer.
 */
import { type CookieJar, hop, type Hop } from "./sso";

const htmlDecoded = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

function hiddenInputs(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(tag)?.[1];
    const value = /value="([^"]*)"/.exec(tag)?.[1];
    if (name && value !== undefined && /type="hidden"/.test(tag)) fields[name] = htmlDecoded(value);
  }
  return fields;
}

const post = (jar: CookieJar, url: URL, fields: Record<string, string>) =>
  hop(jar, url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });

export async function samlSignIn(jar: CookieJar, start: URL, account: { username: string; password: string }): Promise<Hop> {
  let next = start;
  let response = await hop(jar, next);
  for (let step = 0; step < 12; step += 1) {
    if (response.location) {
      next = new URL(response.location, next);
      response = await hop(jar, next);
      continue;
    }
    const action = htmlDecoded(/<form[^>]*action="([^"]*)"/.exec(response.body)?.[1] ?? "");
    if (/name="SAMLResponse"/.test(response.body)) return post(jar, new URL(action, next), hiddenInputs(response.body));
    if (/name="username"/.test(response.body)) {
      response = await post(jar, new URL(action || next.href, next), {
        ...hiddenInputs(response.body),
        username: account.username,
        password: account.password,
      });
      continue;
    }
    throw new Error(`SAML sign-in stopped at ${next.href} with ${response.status}: ${response.body.slice(0, 300)}`);
  }
  throw new Error("too many hops before the ACS");
}
