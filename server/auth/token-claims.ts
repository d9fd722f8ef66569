/**
 * The pure half of checking a token from an identity provider: which verifier a token goes to
 * (by its unverified `iss`), which algorithms a provider may use, how a jose failure reads as one
 * of our refusal codes, and the life bound every token shares. No I/O here, so it is unit-tested
 * (test/unit/server/auth/token-claims.test.ts) and the refusals happen before any fetch.
 */
import { decodeJwt, decodeProtectedHeader, errors } from "jose";

/**
 * What a provider's token may be signed with. Never HS*: a provider's keys are public, so an
 * HMAC "signed" with its public key (or with the client secret, which we hold too) proves
 * nothing; never `none`.
 */
export const PROVIDER_ALGORITHMS = ["RS256", "ES256", "EdDSA"] as const;

/** An identity provider's clock may run a little ahead of ours; `exp` gets no such grace. */
export const IAT_SKEW_SECONDS = 5;

/** Why a token was refused; each is `401` with this code (server/openapi/error-codes.ts lists them per route). */
export const TOKEN_REFUSAL_CODES = [
  "UNAUTHORIZED",
  "TOKEN_INVALID",
  "TOKEN_ALGORITHM",
  "TOKEN_EXPIRED",
  "TOKEN_LIFETIME",
  "TOKEN_ISSUER_UNKNOWN",
  "TOKEN_AUDIENCE",
  "TOKEN_TYPE",
  "TOKEN_KEY_UNKNOWN",
  "TOKEN_PROVIDER_UNAVAILABLE",
  "TOKEN_NOT_LINKED",
  "ACCOUNT_INACTIVE",
] as const;
export type TokenRefusalCode = (typeof TOKEN_REFUSAL_CODES)[number];

export const TOKEN_REFUSAL_MESSAGES: Record<TokenRefusalCode, string> = {
  UNAUTHORIZED: "Invalid or expired token, or the account no longer exists",
  TOKEN_INVALID: "The token is malformed, its signature does not verify, or it lacks exp, iat or sub",
  TOKEN_ALGORITHM: `Identity-provider tokens must be signed with ${PROVIDER_ALGORITHMS.join(", ")}`,
  TOKEN_EXPIRED: "The token has expired; get a new one from your identity provider",
  TOKEN_LIFETIME: "The token's lifetime (exp - iat) is longer than this server accepts, or its iat is in the future",
  TOKEN_ISSUER_UNKNOWN: "No enabled identity provider has this token's issuer",
  TOKEN_AUDIENCE: "The token was not issued for this API (aud is not the provider's API audience or client id)",
  TOKEN_TYPE: "The token is not an access token (an ID token, say): send the provider's access token (typ at+jwt, or with a scope claim and no nonce)",
  TOKEN_KEY_UNKNOWN: "The token's key (kid) is not published by its identity provider",
  TOKEN_PROVIDER_UNAVAILABLE: "The identity provider's keys could not be fetched; try again shortly",
  TOKEN_NOT_LINKED: "This identity-provider account is not linked to anyone here; sign in through the web once, or ask an admin",
  ACCOUNT_INACTIVE: "This account has been deactivated or deleted",
};

/** A token goes to our own HS256 check or to the provider with its (still unverified) issuer. */
export type TokenRoute = { to: "own" } | { to: "provider"; issuer: string; alg: string; kid: string | undefined } | { to: "malformed" };

/**
 * Reads `iss` and the header without trusting them: they only pick the verifier. A token without
 * `iss`, or with ours, goes to our own check exactly as before provider tokens existed.
 */
export function routeToken(token: string, ownIssuer: string): TokenRoute {
  try {
    const header = decodeProtectedHeader(token);
    const { iss } = decodeJwt(token);
    if (iss === undefined || iss === ownIssuer) return { to: "own" };
    return { to: "provider", issuer: iss, alg: typeof header.alg === "string" ? header.alg : "", kid: typeof header.kid === "string" ? header.kid : undefined };
  } catch {
    return { to: "malformed" };
  }
}

export function isProviderAlgorithm(alg: string): boolean {
  return (PROVIDER_ALGORITHMS as readonly string[]).includes(alg);
}

/** The audience a provider's API tokens must carry: its `api_audience`, else its client id. */
export function apiAudienceOf(provider: { api_audience: string | null; client_id: string }): string {
  return provider.api_audience ?? provider.client_id;
}

/** Claims only an ID token carries (OpenID Connect Core §2, §3.1.3.6; Keycloak's own `typ: "ID"`). */
const ID_TOKEN_MARKS = ["nonce", "at_hash", "c_hash"] as const;

/**
 * Whether a verified token is an access token rather than an ID token. Needed where a provider's
 * API audience is its client id: an ID token issued to our client carries exactly that `aud`, so
 * the audience cannot tell them apart (review F13). An RFC 9068 access token says so in its header
 * (`typ: at+jwt`); others (Entra ID v2, Keycloak) carry a `scp` or `scope` claim, which ID tokens
 * do not. A token with an ID token's marks (`nonce`, `at_hash`, `c_hash`, `typ: "ID"`) never is one:
 * our sign-in always sends a nonce, so every ID token issued to our client has it.
 */
export function isAccessToken(header: { typ?: unknown }, claims: Record<string, unknown>): boolean {
  if (ID_TOKEN_MARKS.some((mark) => claims[mark] !== undefined) || claims.typ === "ID") return false;
  if (typeof header.typ === "string" && /^(application\/)?at\+jwt$/i.test(header.typ)) return true;
  return typeof claims.scp === "string" || Array.isArray(claims.scp) || typeof claims.scope === "string";
}

/** Whether the verified `aud` claim (a string or a list) names `audience`. */
export function audienceIncludes(aud: unknown, audience: string): boolean {
  return typeof aud === "string" ? aud === audience : Array.isArray(aud) && aud.includes(audience);
}

/** The life bound our own tokens have too: exp − iat ≤ maxTtlSeconds, iat not in the future. */
export function lifetimeRefusal(claims: { exp: number; iat: number }, maxTtlSeconds: number, nowSeconds: number): TokenRefusalCode | null {
  if (claims.exp - claims.iat > maxTtlSeconds) return "TOKEN_LIFETIME";
  // An `iat` in the future would make a long-lived token look short.
  if (claims.iat > nowSeconds + IAT_SKEW_SECONDS) return "TOKEN_LIFETIME";
  return null;
}

/** A jose failure as our code; anything not recognised is a plain invalid token. */
export function refusalOfJoseError(error: unknown): TokenRefusalCode {
  if (error instanceof errors.JWTExpired) return "TOKEN_EXPIRED";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return "TOKEN_INVALID";
    if (error.claim === "aud") return "TOKEN_AUDIENCE";
    if (error.claim === "iss") return "TOKEN_ISSUER_UNKNOWN";
    if (error.claim === "iat" || error.claim === "nbf") return "TOKEN_LIFETIME";
    return "TOKEN_INVALID";
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "TOKEN_ALGORITHM";
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return "TOKEN_KEY_UNKNOWN";
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return "TOKEN_PROVIDER_UNAVAILABLE";
  if (error instanceof ProviderUnavailable) return "TOKEN_PROVIDER_UNAVAILABLE";
  return "TOKEN_INVALID";
}

/** The provider's discovery document or JWKS could not be fetched (timeout, HTTP error, bad JSON). */
export class ProviderUnavailable extends Error {
  constructor(
    readonly issuer: string,
    reason: string,
  ) {
    super(`identity provider unavailable: ${reason}`);
    this.name = "ProviderUnavailable";
  }
}
