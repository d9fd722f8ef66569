/**
 * The pages a single sign-on ends on when it does not end signed in: a failure (what went wrong,
 * its code, a way back) or the console's test run (the claims that came back and whom they map
 * to). Plain HTML with no script or style, so the API's own Content-Security-Policy serves them.
 */
import type { Context } from "koa";
import type { MappedClaims } from "./claims";
import type { FoundPerson } from "./find-person";
import { SignInFailure } from "./failures";

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

function send(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Cache-Control", "no-store");
  ctx.body = html;
}

export function renderFailure(ctx: Context, failure: SignInFailure, backTo: string): void {
  send(
    ctx,
    failure.status,
    page(
      "Sign-in did not complete",
      `<p id="message">${escapeHtml(failure.message)}</p>
<p>Code: <code id="code">${failure.code}</code>. Nobody was signed in.</p>
<p><a href="${escapeHtml(backTo)}">Back to sign-in</a></p>`,
    ),
  );
}

/** What a test sign-in found. `claims` are the ID token's, shown to the admin who ran it (their own account at the provider). */
export function renderTestResult(ctx: Context, claims: Record<string, unknown>, mapped: MappedClaims, outcome: FoundPerson | SignInFailure): void {
  const rows = Object.entries(claims)
    .filter(([name]) => !["aud", "exp", "iat", "nonce", "at_hash", "c_hash", "auth_time", "sid", "azp"].includes(name))
    .map(([name, value]) => `<tr><th scope="row">${escapeHtml(name)}</th><td><code>${escapeHtml(JSON.stringify(value))}</code></td></tr>`)
    .join("\n");
  const verdict =
    outcome instanceof SignInFailure
      ? `<p id="verdict">Would be refused: <code id="code">${outcome.code}</code>: ${escapeHtml(outcome.message)}</p>`
      : `<p id="verdict">Would sign in <strong>${escapeHtml(outcome.email)}</strong> as ${outcome.role} (${outcome.how.replace(/-/g, " ")}).</p>`;
  send(
    ctx,
    200,
    page(
      "Test sign-in",
      `<p>This was a test: nobody was signed in and nothing was changed.</p>
${verdict}
<h2>Fields we read</h2>
<ul><li>Email: ${escapeHtml(mapped.email ?? "(none)")} (${mapped.emailVerified ? "verified" : "not verified"})</li>
<li>Name: ${escapeHtml(mapped.profile.name ?? "(none)")}</li>
<li>Department: ${escapeHtml(mapped.profile.department ?? "(none)")}</li>
<li>Groups: ${escapeHtml(mapped.groups.join(", ") || "(none)")}</li></ul>
<h2>Claims that came back</h2>
<table>${rows}</table>
<p><a href="/admin#sign-in">Back to the console</a></p>`,
    ),
  );
}
