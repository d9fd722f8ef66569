/**
 * How a browser signs in to Bull Board without a token ever appearing in a URL (where it would
 * end up in history, proxy logs and Referer headers). Two ways, both ending in an http-only,
 * SameSite=Strict cookie scoped to /admin (Secure when the request came over HTTPS):
 *
 * - `GET /admin/login` serves a small page whose form POSTs the token to `/admin/login`.
 * - `POST /api/v1/ops/board-code` (Bearer token) returns a single-use code valid for
 *   BOARD_CODE_TTL_SECONDS; opening `/admin/queues?code=<code>` swaps it for the cookie.
 */
import type { Context } from "koa";
import { SESSION_COOKIE, authenticate } from "./auth/middleware";
import { BoardCodes } from "./auth/board-codes";
import { isOperator, operatorOnlyMessage } from "./auth/operator";
import { forbidden, unauthorized } from "./errors";
import { Refusal } from "../lib/refusal";
import type { ServerDeps } from "./deps";

export const BULL_BOARD_PATH = "/admin/queues";
export const LOGIN_PATH = "/admin/login";
const FORM_LIMIT_BYTES = 16 * 1024;

export const SIGN_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to Bull Board</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto">
<h1>skillnet-chat queues</h1>
<p>Paste an admin token of the operator organisation (OPS_ORG).</p>
<form method="post" action="${LOGIN_PATH}">
<label>Token <input type="password" name="token" autocomplete="off" required style="width: 100%"></label>
<p><button type="submit">Sign in</button></p>
</form></body></html>`;

/** Reads an `application/x-www-form-urlencoded` body; the app's JSON parser leaves forms alone. */
async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is("application/x-www-form-urlencoded"))
    throw new Refusal("unsupported_media", "UNSUPPORTED_MEDIA_TYPE", "Send the sign-in form as application/x-www-form-urlencoded");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw new Refusal("too_large", "PAYLOAD_TOO_LARGE", `The sign-in form is larger than ${FORM_LIMIT_BYTES} bytes`);
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export class BoardSignIn {
  private readonly codes: BoardCodes;

  constructor(private readonly deps: ServerDeps) {
    this.codes = new BoardCodes(deps.redis, deps.config.server.BOARD_CODE_TTL_SECONDS);
  }

  /** A single-use code for the bearer token this request was admitted with. */
  async issueCode(ctx: Context): Promise<{ code: string; url: string; expires_in_seconds: number }> {
    // requireAuth admitted a bearer header (no cookie here), so it is present.
    const token = /^Bearer\s+(.+)$/i.exec(ctx.get("authorization"))![1]!.trim();
    const code = await this.codes.issue(token);
    return { code, url: `${BULL_BOARD_PATH}?code=${code}`, expires_in_seconds: this.codes.ttlSeconds };
  }

  /** `POST /admin/login`: the form's token into the cookie. */
  async signInWithForm(ctx: Context): Promise<void> {
    const token = (await readForm(ctx)).get("token")?.trim() ?? "";
    await this.signIn(ctx, token, "Invalid or expired token, or the account no longer exists");
  }

  /** `/admin/queues?code=…`: redeems the code into the cookie, then reloads the board without it. */
  async redeem(ctx: Context, code: string): Promise<void> {
    const token = await this.codes.redeem(code);
    await this.signIn(ctx, token ?? "", "This sign-in code is invalid, already used or expired: ask for a new one (POST /api/v1/ops/board-code)");
  }

  private async signIn(ctx: Context, token: string, refusal: string): Promise<void> {
    const principal = token ? await authenticate(this.deps, token) : null;
    if (!principal) throw unauthorized(refusal);
    if (!(await isOperator(this.deps, principal))) throw forbidden(operatorOnlyMessage(this.deps));
    // ctx.secure honours X-Forwarded-Proto only when TRUST_PROXY made the app trust proxies.
    ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: "strict", secure: ctx.secure, path: "/admin", overwrite: true });
    ctx.status = 303;
    ctx.redirect(BULL_BOARD_PATH);
  }
}
