/** Request and response shapes of the identity-provider settings (admin and operator). */
import { z } from "zod";
import { claimMappingSchema } from "../../../db/queries/identity";

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const identityProviderBody = z.strictObject({
  display_name: z.string().trim().min(1).max(100).describe('Shown on the sign-in button: "Sign in with <display_name>".'),
  issuer: z
    .url({ protocol: /^https?$/, error: "issuer must be an http(s) URL" })
    .max(500)
    .describe("The provider's issuer URL; `<issuer>/.well-known/openid-configuration` must answer. HTTPS, except on a loopback address."),
  client_id: z.string().trim().min(1).max(500),
  client_secret: z
    .string()
    .min(1)
    .max(2000)
    .nullable()
    .optional()
    .describe("Write-only: stored encrypted with SECRETS_KEY, never returned. Omitted keeps the stored one; `null` removes it (a public client)."),
  api_audience: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .nullable()
    .default(null)
    .describe("The `aud` of the provider's access tokens for our API; null: the client id."),
  allowed_domains: z
    .array(z.string().trim().toLowerCase().regex(DOMAIN, "allowed_domains: each must be a domain name like example.com"))
    .max(50)
    .default([])
    .describe(
      "Email domains this provider signs in (exact match) and that find it on the sign-in page, once verified for the organisation " +
        "(a listed domain that is not verified does nothing). One another organisation verified is refused (`409 DOMAIN_CLAIMED`).",
    ),
  claim_mapping: claimMappingSchema.strict().default({}),
  jit_enabled: z.boolean().default(false).describe("Create the employee at their first sign-in from an allowed domain."),
  enabled: z.boolean().default(true),
});

export const identityProviderView = z.strictObject({
  id: z.uuid(),
  org_id: z.uuid(),
  display_name: z.string(),
  issuer: z.string(),
  client_id: z.string(),
  client_secret_set: z.boolean().describe("Whether a client secret is stored; the secret itself is never returned."),
  api_audience: z.string().nullable(),
  allowed_domains: z.array(z.string()),
  allowed_domain_status: z
    .record(z.string(), z.enum(["verified", "pending", "not_claimed"]))
    .describe(
      "Each allowed domain's standing: only a `verified` one signs people in (see /api/v1/admin/identity-provider/domains); " +
        "`pending` awaits its TXT record, `not_claimed` was never added there.",
    ),
  claim_mapping: claimMappingSchema,
  jit_enabled: z.boolean(),
  enabled: z.boolean(),
  redirect_uri: z.string().describe("The callback to register at the provider."),
  updated_at: z.iso.datetime({ offset: true }),
});

export const identityProviderResponse = z.strictObject({ identity_provider: identityProviderView.nullable() });

export const testSignInResponse = z.strictObject({
  start_url: z.string().describe("Open it in the browser: it runs the sign-in in test mode (reports the claims, signs nobody in). Single use, 5 minutes."),
});
