/** Request and response shapes of single sign-on and the session it starts. */
import { z } from "zod";
import { RETURN_PATHS } from "../../auth/sso/pending-sign-ins";

export const providersQuery = z.object({
  email: z.string().trim().max(320).optional().describe("The work email typed on the sign-in page; only its domain is used."),
  org: z.string().trim().max(100).optional().describe("An organisation's slug (a sign-in link like `/?org=acme`)."),
});

export const providersResponse = z.strictObject({
  providers: z
    .array(
      z.strictObject({
        id: z.uuid(),
        display_name: z.string(),
        protocol: z.enum(["oidc", "saml"]),
        start_url: z.string().describe("Open it (with `?return_to=/` or `/admin`) to start signing in with this provider."),
      }),
    )
    .describe("One provider when one signs in the email's domain; else the organisation's, to choose from; empty when there is none to offer."),
});

export const startParams = z.object({ providerId: z.uuid({ error: "providerId must be a UUID" }) });

export const startQuery = z.object({
  return_to: z.enum(RETURN_PATHS).default("/").describe("Where the browser lands once signed in: the tutor (`/`) or the console (`/admin`)."),
  test: z.string().max(128).optional().describe("The single-use ticket of a test sign-in (POST /api/v1/admin/identity-provider/test)."),
});

/** Whatever the provider appends: read by openid-client from the raw query string. */
export const callbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(256).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

export const refreshResponse = z.strictObject({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int().describe("Seconds (ACCESS_TOKEN_TTL_SECONDS)."),
  user: z.strictObject({ id: z.uuid(), org_id: z.uuid(), email: z.string(), name: z.string(), role: z.enum(["admin", "employee"]) }),
});

export const signOutBody = z.strictObject({ return_to: z.enum(RETURN_PATHS).default("/") });

export const signOutResponse = z.strictObject({
  end_session_url: z
    .string()
    .nullable()
    .describe("Open it to end the provider's session too (RP-initiated logout; client_id and post_logout_redirect_uri only). Null: no such step."),
});
