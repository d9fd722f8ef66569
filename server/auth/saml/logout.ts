/**
 * SAML single logout, where the IdP offers it (an SLO URL in its metadata):
 *
 * - our sign-out (`samlLogoutUrl`): after the session here has ended, the page is sent to the
 *   IdP with a signed LogoutRequest for the NameID and SessionIndex of that sign-in;
 * - the IdP's answer (a LogoutResponse) or its own LogoutRequest (the person signed out elsewhere)
 *   arrive at our SLO URL by HTTP-Redirect, read first by redirect-message.ts (bounded, a
 *   LogoutRequest must be signed and recent, a LogoutResponse must answer a logout we sent), then
 *   the signature checked by node-saml with the IdP's certificates. A LogoutRequest ends every
 *   session of the person it names (found through the identity link of this provider) and is
 *   answered with a signed LogoutResponse.
 */
import type { Context } from "koa";
import { findIdentityLink, findIdentityProvider } from "../../../db/queries/identity";
import { type RefreshTokenRow, revokeRefreshTokensOfUser } from "../../../db/queries/refresh-tokens";
import { SIGNED_OUT, UserEventPublisher } from "../../../queues/events/user-events";
import type { ServerDeps } from "../../deps";
import { SignInFailure } from "../sso/failures";
import type { PendingSignIn } from "../sso/pending-sign-ins";
import { renderFailure } from "../sso/result-page";
import { publicOrigin } from "../sso/session";
import { UnsafeXml } from "../../../lib/saml/safe-xml";
import { consumeLogoutRequest, readLogoutMessage } from "./redirect-message";
import { SamlRequestCache } from "./request-cache";
import { samlClient, samlProviderOf } from "./service-provider";
import { takeSamlSession } from "./sessions";
import { loadSamlProvider, returnPathOf } from "./sign-in";

/** Where the page goes to end the IdP's session too; null when the provider is not SAML, has no SLO URL, or the sign-in left nothing to name. */
export async function samlLogoutUrl(
  ctx: Context,
  deps: ServerDeps,
  live: Pick<RefreshTokenRow, "provider_id" | "user_id" | "family_id">,
  returnTo: PendingSignIn["returnTo"],
): Promise<string | null> {
  if (!live.provider_id) return null;
  const row = await findIdentityProvider(deps.db, live.provider_id);
  if (row?.protocol !== "saml") return null;
  try {
    const provider = samlProviderOf(row, deps.config.auth.SECRETS_KEY, publicOrigin(ctx, deps));
    const session = await takeSamlSession(deps.redis, live.user_id, live.family_id);
    if (!provider.config.slo_url || !session) return null;
    const profile = { issuer: provider.config.entity_id, ...session };
    return await samlClient(deps.redis, provider).getLogoutUrlAsync(profile, returnTo, {});
  } catch (error) {
    deps.log.warn({ providerId: live.provider_id, err: error }, "SAML single logout skipped");
    return null;
  }
}

export async function handleSamlLogout(ctx: Context, deps: ServerDeps, providerId: string): Promise<void> {
  const relayState = typeof ctx.query.RelayState === "string" ? ctx.query.RelayState : undefined;
  try {
    const provider = await loadSamlProvider(ctx, deps, providerId);
    const message = readLogoutMessage(ctx.query);
    const requests = new SamlRequestCache(deps.redis, provider.row.id);
    const saml = samlClient(deps.redis, provider, requests);
    const { profile, loggedOut } = await saml.validateRedirectAsync(ctx.query, ctx.querystring).catch((error: unknown) => {
      throw new SignInFailure("SIGN_IN_REJECTED", error instanceof Error ? error.message : String(error));
    });
    await consumeLogoutRequest(requests, message);
    if (message.kind === "request" && profile) {
      const link = await findIdentityLink(deps.db, provider.config.entity_id, profile.nameID);
      if (link && link.provider_id === provider.row.id) {
        const ended = await revokeRefreshTokensOfUser(deps.db, link.org_id, link.user_id);
        new UserEventPublisher(deps.redis).cutSockets(link.user_id, SIGNED_OUT);
        deps.log.info({ orgId: link.org_id, userId: link.user_id, providerId, ended }, "signed out by the SAML identity provider");
      }
      ctx.status = 302;
      ctx.redirect(await saml.getLogoutResponseUrlAsync(profile, relayState ?? "", {}, true));
      return;
    }
    if (!loggedOut) throw new SignInFailure("SIGN_IN_REJECTED", "neither a LogoutRequest nor a LogoutResponse");
    ctx.status = 303;
    ctx.redirect(returnPathOf(relayState));
  } catch (error) {
    const failure =
      error instanceof SignInFailure
        ? error
        : error instanceof UnsafeXml
          ? new SignInFailure("SIGN_IN_MESSAGE_REFUSED", error.message)
          : new SignInFailure("SIGN_IN_UNAVAILABLE", String(error));
    deps.log.warn({ code: failure.code, detail: failure.detail, providerId }, "SAML single logout refused");
    renderFailure(ctx, failure, "/");
  }
}
