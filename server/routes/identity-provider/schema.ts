/** Request and response shapes of the identity-provider settings (admin and operator). */
import { z } from "zod";
import { identityProviderChangeSchema } from "../../../commands/identity-provider-change";
import { claimMappingSchema } from "../../../db/queries/identity";
import { orgParams } from "../allowance/schema";

/** The change as the command validates it, for the admin, the operator and the CLI alike. */
export const identityProviderBody = identityProviderChangeSchema;

export const identityProviderView = z.strictObject({
  id: z.uuid(),
  org_id: z.uuid(),
  protocol: z.enum(["oidc", "saml"]),
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

/** One provider, answered by the by-id routes (never null: a missing one is 404). */
export const savedProviderResponse = z.strictObject({ identity_provider: identityProviderView });

export const identityProvidersResponse = z.strictObject({
  identity_providers: z.array(identityProviderView).describe("The organisation's providers, by name."),
});

export const providerParams = z.object({ providerId: z.uuid({ error: "providerId must be a UUID" }) });

export const orgProviderParams = orgParams.extend(providerParams.shape);

export const testSignInResponse = z.strictObject({
  start_url: z.string().describe("Open it in the browser: it runs the sign-in in test mode (reports the claims, signs nobody in). Single use, 5 minutes."),
});
