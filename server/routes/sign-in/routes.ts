/**
 * Single sign-on with the organisation's identity provider, and the session it starts: find the
 * provider for an email or an organisation, start the flow, the provider's callback, refresh the
 * access token from the cookie, sign out. See server/auth/sso/ and docs/single-sign-on.md.
 */
import { findIdentityProvider, isOidcProvider } from "../../../db/queries/identity";
import { findLiveRefreshToken, issueRefreshToken, revokeRefreshFamily, revokeRefreshTokensOfUser, spendRefreshToken } from "../../../db/queries/refresh-tokens";
import { findUser } from "../../../db/queries/users";
import { Refusal } from "../../../lib/refusal";
import { SignInFailure } from "../../auth/sso/failures";
import { CALLBACK_PATH, completeSignIn, endSessionUrl, startSignIn } from "../../auth/sso/flow";
import { samlLogoutUrl } from "../../auth/saml/logout";
import { renderFailure } from "../../auth/sso/result-page";
import { ssoOf } from "../../auth/sso/services";
import { findSignInChoices } from "../../auth/sso/sign-in-choices";
import { startedFromOurPages } from "../../auth/sso/start-origin";
import { UserEventPublisher } from "../../../queues/events/user-events";
import { CSRF_HEADER, REFRESH_COOKIE, clearRefreshCookie, requireSameSite, setRefreshCookie } from "../../auth/sso/session";
import { perClientIp } from "../../middleware/rate-limit";
import { defineRoute } from "../define-route";
import { callbackQuery, providersQuery, providersResponse, refreshResponse, signOutBody, signOutResponse, startParams, startQuery } from "./schema";

const TAG = "auth";
const refused = (message: string) => new Refusal("unauthenticated", "REFRESH_TOKEN_INVALID", message);

export const signInRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/auth/providers",
    tag: TAG,
    summary: "The sign-in buttons for a work email or an organisation",
    description:
      "By the email's domain: the enabled provider that lists it, of the organisation that verified it; when none of that " +
      "organisation's providers lists the domain, all its enabled providers to choose from. By the organisation's slug: its enabled " +
      "providers. An unknown, unverified or disabled one gets the same shape with an empty list. Limited per client IP (RATE_LIMIT_SIGN_IN_PER_MINUTE, counted apart from sign-in " +
      "starts), so it cannot be used to list customers' domains in bulk.",
    access: "public",
    query: providersQuery,
    rateLimited: true,
    use: (deps) => [perClientIp(deps.redis, { bucket: "sso-lookup", limit: deps.config.rateLimits.RATE_LIMIT_SIGN_IN_PER_MINUTE, windowMs: 60_000 })],
    responses: { 200: { description: "The providers to offer.", schema: providersResponse } },
    handler: async (ctx, { query }, deps) => {
      ctx.body = await findSignInChoices(deps.db, query);
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/auth/oidc/:providerId/start",
    tag: TAG,
    summary: "Start signing in with an identity provider",
    description:
      "302 to the provider's authorization endpoint (Authorization Code with PKCE S256, state and nonce), with a short-lived HttpOnly " +
      "SameSite=Lax cookie that binds the sign-in to this browser. Only from our own pages: a navigation another site started " +
      "(`Sec-Fetch-Site` cross-site or same-site; else an `Origin` or `Referer` of another origin) ends on a page (SIGN_IN_CROSS_SITE) " +
      "with no cookie set. An unknown or disabled provider, or one that does not answer, ends on an HTML page.",
    access: "public",
    params: startParams,
    query: startQuery,
    rateLimited: true,
    // Counted before anything is stored: each start keeps a pending sign-in in Redis for 10 minutes.
    use: (deps) => [perClientIp(deps.redis, { bucket: "sso-start", limit: deps.config.rateLimits.RATE_LIMIT_SIGN_IN_PER_MINUTE, windowMs: 60_000 })],
    responses: {
      302: { description: "To the identity provider." },
      403: { description: "A page: the provider is unknown or disabled, or another site started the sign-in.", contentType: "text/html" },
      504: { description: "A page: the provider did not answer within OIDC_HTTP_TIMEOUT_MS.", contentType: "text/html" },
    },
    handler: async (ctx, { params, query }, deps) => {
      try {
        // Before anything is stored or a cookie set: a start from another site sets nothing.
        if (!startedFromOurPages(ctx, deps)) throw new SignInFailure("SIGN_IN_CROSS_SITE");
        const provider = await findIdentityProvider(deps.db, params.providerId);
        const testing = query.test !== undefined && (await ssoOf(deps).pending.redeemTestTicket(query.test, params.providerId));
        if (query.test !== undefined && !testing) throw new SignInFailure("SIGN_IN_STATE_INVALID");
        if (!provider || !isOidcProvider(provider) || (!provider.enabled && !testing)) throw new SignInFailure("SIGN_IN_PROVIDER_DISABLED");
        await startSignIn(ctx, deps, provider, query.return_to, testing ? "test" : "sign-in");
      } catch (error) {
        if (!(error instanceof SignInFailure)) throw error;
        renderFailure(ctx, error, query.return_to);
      }
    },
  }),
  defineRoute({
    method: "get",
    path: CALLBACK_PATH,
    tag: TAG,
    summary: "The identity provider's redirect back (register this URL at the provider)",
    description:
      "openid-client exchanges the code and validates the ID token (issuer, audience, nonce, signature). Signed in: the refresh cookie and " +
      "a 303 to the page the sign-in started from. Otherwise an HTML page with the reason and its code (SIGN_IN_STATE_INVALID, " +
      "SIGN_IN_REJECTED, IDP_UNAVAILABLE, EMAIL_NOT_VERIFIED, DOMAIN_NOT_ALLOWED, NO_ACCOUNT, WRONG_ORGANISATION, LINKED_TO_ANOTHER_PROVIDER, ACCOUNT_DEACTIVATED, …); nobody is signed in.",
    access: "public",
    query: callbackQuery,
    responses: {
      303: { description: "Signed in: to `/` or `/admin`, with the `skillnet_refresh` cookie." },
      200: { description: "A test sign-in's report (claims and the person they map to).", contentType: "text/html" },
      400: { description: "A page: the state, the code or the ID token was refused.", contentType: "text/html" },
      403: { description: "A page: the person may not sign in here.", contentType: "text/html" },
      504: { description: "A page: the provider did not answer in time.", contentType: "text/html" },
    },
    handler: (ctx, { query }, deps) => completeSignIn(ctx, deps, query),
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/auth/refresh",
    tag: TAG,
    summary: "A new access token from the refresh cookie (the cookie is replaced)",
    description:
      `Needs the \`${REFRESH_COOKIE}\` cookie and an \`${CSRF_HEADER}\` header. The cookie is spent and replaced; a spent one presented ` +
      "again revokes its whole family (`401 REFRESH_TOKEN_INVALID`), so does a deactivated account.",
    access: "public",
    responses: { 200: { description: "The access token (ACCESS_TOKEN_TTL_SECONDS) and who it signs in.", schema: refreshResponse } },
    errors: ["REFRESH_TOKEN_INVALID", "CSRF_CHECK_FAILED"],
    handler: async (ctx, _input, deps) => {
      requireSameSite(ctx, deps);
      const presented = ctx.cookies.get(REFRESH_COOKIE);
      if (!presented) throw refused("Not signed in: no refresh cookie");
      const outcome = await spendRefreshToken(deps.db, presented);
      if (outcome.kind !== "spent") {
        clearRefreshCookie(ctx);
        if (outcome.kind === "reused") {
          deps.log.warn({ orgId: outcome.row.org_id, userId: outcome.row.user_id, familyId: outcome.row.family_id }, "refresh token reused: family revoked");
          // Whoever holds the stolen or the rightful copy, the sockets opened with this sign-in end too.
          new UserEventPublisher(deps.redis).cutSignIn(outcome.row.user_id, outcome.row.family_id);
        }
        throw refused(
          outcome.kind === "reused" ? "This sign-in was used elsewhere and has been ended: sign in again" : "Your sign-in has expired: sign in again",
        );
      }
      const row = outcome.row;
      const user = await findUser(deps.db, row.org_id, row.user_id);
      if (!user?.is_active) {
        // Deactivation revokes them already; a row changed another way (or a race with it) ends every session here too.
        await revokeRefreshTokensOfUser(deps.db, row.org_id, row.user_id);
        clearRefreshCookie(ctx);
        throw refused("This account has been deactivated");
      }
      const next = await issueRefreshToken(deps.db, {
        orgId: row.org_id,
        userId: row.user_id,
        providerId: row.provider_id,
        familyId: row.family_id,
        ttlSeconds: deps.config.auth.REFRESH_TOKEN_TTL_SECONDS,
      });
      setRefreshCookie(ctx, next);
      const ttl = deps.config.auth.ACCESS_TOKEN_TTL_SECONDS;
      ctx.set("Cache-Control", "no-store");
      ctx.body = {
        access_token: await deps.tokens.sign({ userId: user.id, orgId: user.org_id, role: user.role }, ttl, row.family_id),
        token_type: "Bearer",
        expires_in: ttl,
        user: { id: user.id, org_id: user.org_id, email: user.email, name: user.name, role: user.role },
      };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/auth/sign-out",
    tag: TAG,
    summary: "End the session: revoke the refresh family, clear the cookie",
    description:
      `Needs an \`${CSRF_HEADER}\` header. Answers \`end_session_url\` when the provider supports RP-initiated logout; the page opens ` +
      "it to end the provider's session too. Access tokens already issued run out within ACCESS_TOKEN_TTL_SECONDS.",
    access: "public",
    body: signOutBody,
    responses: { 200: { description: "Signed out.", schema: signOutResponse } },
    errors: ["CSRF_CHECK_FAILED"],
    handler: async (ctx, { body }, deps) => {
      requireSameSite(ctx, deps);
      const presented = ctx.cookies.get(REFRESH_COOKIE);
      const live = presented ? await findLiveRefreshToken(deps.db, presented) : undefined;
      if (live) {
        await revokeRefreshFamily(deps.db, live.family_id);
        new UserEventPublisher(deps.redis).cutSignIn(live.user_id, live.family_id);
      }
      clearRefreshCookie(ctx);
      const samlUrl = live ? await samlLogoutUrl(ctx, deps, live, body.return_to) : null;
      ctx.body = { end_session_url: samlUrl ?? (live?.provider_id ? await endSessionUrl(ctx, deps, live.provider_id, body.return_to) : null) };
    },
  }),
];
