/**
 * SAML 2.0 sign-in with a provider, addressed by the provider's id (server/auth/saml/): our SP
 * metadata to give the IdP, the start of an SP-initiated sign-in, the ACS the IdP posts its
 * response to, and single logout. See docs/single-sign-on.md, "SAML 2.0".
 */
import { z } from "zod";
import { handleSamlLogout } from "../../auth/saml/logout";
import { spMetadataXml } from "../../auth/saml/service-provider";
import { completeSamlSignIn, loadSamlProvider, startSamlSignIn } from "../../auth/saml/sign-in";
import { SAML_BASE } from "../../../lib/saml/sp-urls";
import { SignInFailure } from "../../auth/sso/failures";
import { renderFailure } from "../../auth/sso/result-page";
import { startedFromOurPages } from "../../auth/sso/start-origin";
import { perClientIp } from "../../middleware/rate-limit";
import { defineRoute } from "../define-route";
import { startParams, startQuery } from "../sign-in/schema";

const TAG = "auth";

const acsForm = z.object({
  SAMLResponse: z.string().describe("The IdP's response, base64 (HTTP-POST binding)."),
  RelayState: z.string().optional().describe("Where to land: `/` or `/admin`; anything else lands on `/`."),
});

const sloQuery = z.object({
  SAMLRequest: z.string().max(16_384).optional(),
  SAMLResponse: z.string().max(16_384).optional(),
  RelayState: z.string().max(200).optional(),
  SigAlg: z.string().max(200).optional(),
  Signature: z.string().max(2048).optional(),
});

const pages = {
  400: {
    description: "A page: the response was refused (signature, audience, Destination/Recipient, times, InResponseTo, replay, XML).",
    contentType: "text/html",
  },
  403: {
    description: "A page: the provider is disabled or not SAML, IdP-initiated sign-in is off, or the person may not sign in here.",
    contentType: "text/html",
  },
};

export const samlRoutes = [
  defineRoute({
    method: "get",
    path: `${SAML_BASE}/:providerId/metadata`,
    tag: TAG,
    summary: "Our SAML service provider metadata for this provider (give it to the IdP)",
    description:
      "Entity id (this URL), the ACS (HTTP-POST), single logout (HTTP-Redirect) and our certificate for signing and encryption. " +
      "Each provider has its own entity id and key pair. A download (`Content-Disposition: attachment`).",
    access: "public",
    params: startParams,
    responses: { 200: { description: "The SP metadata.", contentType: "application/samlmetadata+xml" }, 403: pages[403] },
    handler: async (ctx, { params }, deps) => {
      try {
        const provider = await loadSamlProvider(ctx, deps, params.providerId);
        ctx.type = "application/samlmetadata+xml";
        ctx.set("Content-Disposition", `attachment; filename="skillnet-sp-${params.providerId}.xml"`);
        ctx.body = spMetadataXml(deps.redis, provider);
      } catch (error) {
        if (!(error instanceof SignInFailure)) throw error;
        renderFailure(ctx, error, "/");
      }
    },
  }),
  defineRoute({
    method: "get",
    path: `${SAML_BASE}/:providerId/start`,
    tag: TAG,
    summary: "Start signing in with a SAML identity provider",
    description:
      "302 to the IdP's SSO URL with a signed AuthnRequest (HTTP-Redirect); its id is kept 10 minutes for the response's InResponseTo. " +
      "Only from our own pages (as the OpenID start). An unknown, disabled or non-SAML provider ends on an HTML page.",
    access: "public",
    params: startParams,
    query: startQuery.pick({ return_to: true }),
    rateLimited: true,
    use: (deps) => [perClientIp(deps.redis, { bucket: "sso-start", limit: deps.config.rateLimits.RATE_LIMIT_SIGN_IN_PER_MINUTE, windowMs: 60_000 })],
    responses: { 302: { description: "To the identity provider." }, 403: pages[403] },
    handler: async (ctx, { params, query }, deps) => {
      try {
        if (!startedFromOurPages(ctx, deps)) throw new SignInFailure("SIGN_IN_CROSS_SITE");
        await startSamlSignIn(ctx, deps, await loadSamlProvider(ctx, deps, params.providerId), query.return_to);
      } catch (error) {
        if (!(error instanceof SignInFailure)) throw error;
        renderFailure(ctx, error, query.return_to);
      }
    },
  }),
  defineRoute({
    method: "post",
    path: `${SAML_BASE}/:providerId/acs`,
    tag: TAG,
    summary: "The IdP's SAML response (Assertion Consumer Service; register this URL at the IdP)",
    description:
      "Signed assertions only (encrypted ones accepted), by a certificate from the IdP's metadata; audience our entity id; Destination " +
      "and Recipient this URL; InResponseTo a request we sent (none: IdP-initiated, only when allowed); times within a minute's skew; " +
      "an assertion used once only. Signed in: the refresh cookie and a 303 to RelayState's path. Otherwise an HTML page with the code.",
    access: "public",
    params: startParams,
    form: { type: "urlencoded", fields: acsForm },
    responses: { 303: { description: "Signed in: to `/` or `/admin`, with the `skillnet_refresh` cookie." }, ...pages },
    handler: (ctx, { params }, deps) => completeSamlSignIn(ctx, deps, params.providerId),
  }),
  defineRoute({
    method: "get",
    path: `${SAML_BASE}/:providerId/slo`,
    tag: TAG,
    summary: "SAML single logout (HTTP-Redirect): the IdP's LogoutResponse, or its LogoutRequest",
    description:
      "A LogoutResponse to our sign-out (its InResponseTo our LogoutRequest, answered once) lands on RelayState's path. A LogoutRequest " +
      "must carry the redirect binding's Signature and SigAlg (the IdP's key) and a recent IssueInstant; it ends every session of the " +
      "person it names and is answered with a signed LogoutResponse. Messages inflating past 256 KB or with a DOCTYPE are refused.",
    access: "public",
    params: startParams,
    query: sloQuery,
    rateLimited: true,
    use: (deps) => [perClientIp(deps.redis, { bucket: "saml-slo", limit: deps.config.rateLimits.RATE_LIMIT_SIGN_IN_PER_MINUTE, windowMs: 60_000 })],
    responses: { 302: { description: "A LogoutResponse, to the IdP." }, 303: { description: "Signed out: to our page." }, 400: pages[400] },
    handler: (ctx, { params }, deps) => handleSamlLogout(ctx, deps, params.providerId),
  }),
];
