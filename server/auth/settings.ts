/**
 * Tokens and secrets: what signs and seals, how long a token lives, and the identity providers' timeouts.
 */
import { z } from "zod";
import { defineSection, optionalString, booleanFlag } from "../../lib/settings-section";

export const authSettings = defineSection({
  environment: {
    JWT_SECRET: optionalString
      .pipe(z.string().min(16, "must be at least 16 characters").optional())
      .describe("HS256 key for tokens, at least 16 characters. Required by the server; `npm start` generates one into `.data/jwt-secret`."),
    DEV_LOGIN_ENABLED: booleanFlag
      .default(false)
      .describe(
        "Enables `POST /api/v1/auth/dev-login` (an email alone buys a token). Refused at start with `NODE_ENV=production`. " +
          "`npm start` turns it on when it runs the embedded Postgres.",
      ),
    JWT_MAX_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(24 * 3600)
      .describe(
        "Longest token lifetime accepted from any issuer (24 h), so a leaked token cannot live for ever: a token without `exp` or `iat`, " +
          "or whose `exp − iat` is longer, gets `401`.",
      ),
    JWT_AUDIENCE: optionalString.describe("When set, dev-login tokens carry this `aud` and tokens without it get `401`."),
    ACCESS_TOKEN_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(900)
      .describe(
        "Lifetime of the access tokens `POST /api/v1/auth/refresh` mints after a single sign-on (15 min; at most `JWT_MAX_TTL_SECONDS`). " +
          "The browser refreshes before they run out.",
      ),
    SECRETS_KEY: optionalString
      .pipe(z.string().min(32, "must be at least 32 characters").optional())
      .describe(
        "Key that encrypts secrets stored in the database (identity providers' client secrets), at least 32 characters. Required to " +
          "configure a provider with a client secret; changing it makes stored secrets unreadable (re-enter them). `npm start` generates " +
          "one into `.data/secrets-key`.",
      ),
  },
  why: {
    JWT_SECRET: "Required: the key that signs sessions. Rotate it to sign every session out.",
    DEV_LOGIN_ENABLED: "Only for a local demo or development: anyone who can reach the server signs in with an email alone.",
    JWT_MAX_TTL_SECONDS: "Your security policy caps how long any token (ours or an identity provider's) may live.",
    JWT_AUDIENCE: "Several services share `JWT_SECRET` and this API must refuse tokens minted for the others.",
    ACCESS_TOKEN_TTL_SECONDS: "Your security policy wants a deactivated person's browser to lose access sooner (or refresh less often).",
    SECRETS_KEY: "Required to store an identity provider's client secret; keep it stable (changing it makes stored secrets unreadable).",
  },
  tunables: {
    // Security choices with their reasons in docs/security.md: lifetimes of what we issue, and how
    // long and how often an identity provider's keys are trusted and fetched again.
    JWT_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(12 * 3600)
      .describe("Lifetime of tokens issued by dev-login (12 h; at most `JWT_MAX_TTL_SECONDS`)."),
    JWT_ISSUER: z
      .string()
      .trim()
      .min(1)
      .default("skillnet-chat")
      .describe(
        "`iss` of our own HS256 tokens (dev-login and single sign-on sign with it); a token with another `iss` is checked against the identity providers.",
      ),
    REFRESH_TOKEN_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(300)
      .default(30 * 24 * 3600)
      .describe(
        "Lifetime of the browser's refresh cookie after a single sign-on (30 days); each use replaces it with a new one of the same " +
          "lifetime, so a browser left unused this long signs in again.",
      ),
    OIDC_HTTP_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5_000)
      .describe(
        "Timeout of each request to an identity provider (discovery, JWKS, the code exchange): a provider that hangs ends sign-in on an " +
          "error page, and saving its settings with `PROVIDER_UNREACHABLE`, within this bound.",
      ),
    OIDC_JWKS_COOLDOWN_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(30)
      .describe(
        "A provider token whose `kid` is not in the cached JWKS makes at most one refetch of that provider's JWKS per this many seconds " +
          "(per issuer, per server node); within it, an unknown `kid` gets `401 TOKEN_KEY_UNKNOWN` without a request.",
      ),
    OIDC_JWKS_MAX_AGE_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(600)
      .describe(
        "How long a provider's JWKS and discovery document are trusted before they are fetched again; a key the provider stopped " +
          "publishing is refused at most this long after (at least `OIDC_JWKS_COOLDOWN_SECONDS`).",
      ),
  },
});
