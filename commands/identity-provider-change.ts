/**
 * What an identity provider change may say, checked once for every caller: the admin's and the
 * operator's API (whose request body is this schema) and the CLI (`npm run org -- idp set`),
 * so a change the API refuses is refused from the CLI too. A change names its protocol; each
 * protocol is one variant of the union (`protocol` absent: OpenID Connect, as before there was a
 * choice).
 */
import { z } from "zod";
import { claimMappingSchema } from "../db/queries/identity";
import { Refusal } from "../lib/refusal";
import { samlProviderFieldsSchema } from "./saml-provider-fields";

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const DISPLAY_NAME = z.string().trim().min(1).max(100).describe('Shown on the sign-in button: "Sign in with <display_name>".');

/** What every provider has, whatever protocol it speaks. */
const commonFields = {
  display_name: DISPLAY_NAME,
  allowed_domains: z
    .array(z.string().trim().toLowerCase().regex(DOMAIN, "allowed_domains: each must be a domain name like example.com"))
    .max(50)
    .default([])
    .describe(
      "Email domains this provider signs in (exact match) and that find it on the sign-in page, once verified for the organisation " +
        "(a listed domain that is not verified does nothing). One another organisation verified is refused (`409 DOMAIN_CLAIMED`); " +
        "one another enabled provider of the organisation lists is refused (`409 DOMAIN_HAS_PROVIDER`).",
    ),
  claim_mapping: claimMappingSchema
    .strict()
    .default({})
    .describe("Which claims (OpenID Connect) or attribute names (SAML) carry the email, name, department and groups."),
  jit_enabled: z.boolean().default(false).describe("Create the employee at their first sign-in from an allowed domain."),
  enabled: z.boolean().default(true),
};

const oidcChangeSchema = z.strictObject({
  protocol: z.literal("oidc").default("oidc").describe("`oidc` (the default) or `saml`."),
  ...commonFields,
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
});

const samlChangeSchema = z.strictObject({ ...samlProviderFieldsSchema.shape, ...commonFields });

/** An OpenID Connect provider (`protocol` omitted or `oidc`, as before SAML existed) or a SAML 2.0 one. */
export const identityProviderChangeSchema = z.discriminatedUnion("protocol", [oidcChangeSchema, samlChangeSchema]);

export type IdentityProviderChange = z.input<typeof identityProviderChangeSchema>;

/** The change as validated (trimmed, domains lower-cased, defaults filled); a bad one is `400 VALIDATION_ERROR`. */
export function validIdentityProviderChange(change: IdentityProviderChange): z.output<typeof identityProviderChangeSchema> {
  const parsed = identityProviderChangeSchema.safeParse(change);
  if (parsed.success) {
    const data = parsed.data;
    if (data.protocol === "saml" && data.metadata_url !== undefined && data.metadata_xml !== undefined)
      throw new Refusal("invalid", "VALIDATION_ERROR", "The identity provider change is not valid: give metadata_url or metadata_xml, not both");
    return data;
  }
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "change"}: ${issue.message}`).join("; ");
  throw new Refusal("invalid", "VALIDATION_ERROR", `The identity provider change is not valid: ${issues}`);
}
