/**
 * Every `{error: {code}}` the HTTP API gives, with its status and when. The OpenAPI document
 * lists them per route; docs/http-api.md explains them at more length.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: {
    status: 400,
    when: "The body, query or path parameters do not match the schema, or the body has a field the endpoint does not accept; `fields` lists each problem.",
  },
  BAD_REQUEST: { status: 400, when: "The body is not valid JSON." },
  TOKEN_IN_URL: { status: 400, when: "A token was put in a URL; use the sign-in form or a board code." },
  UNAUTHORIZED: { status: 401, when: "The token is missing, invalid or expired; or dev-login got an unknown email." },
  TOKEN_INVALID: {
    status: 401,
    when: "An identity provider's token is malformed, its signature does not verify, or it lacks `exp`, `iat` or `sub`.",
  },
  TOKEN_ALGORITHM: { status: 401, when: "An identity provider's token is not signed with RS256, ES256 or EdDSA (`none`, HS256…)." },
  TOKEN_EXPIRED: { status: 401, when: "An identity provider's token is past its `exp`." },
  TOKEN_LIFETIME: { status: 401, when: "An identity provider's token lives longer than JWT_MAX_TTL_SECONDS (exp − iat), or its `iat` is in the future." },
  TOKEN_ISSUER_UNKNOWN: { status: 401, when: "A token's `iss` is neither JWT_ISSUER nor the issuer of an enabled identity provider." },
  TOKEN_AUDIENCE: { status: 401, when: "An identity provider's token has an `aud` other than its provider's API audience (else client id)." },
  TOKEN_TYPE: {
    status: 401,
    when: "An identity provider's token that is not an access token: with no `api_audience`, the API audience is the client id, as an ID token's `aud` is, so the token must be typed `at+jwt` (RFC 9068) or carry a `scp`/`scope` claim, and never an ID token's `nonce`, `at_hash` or `c_hash`.",
  },
  TOKEN_KEY_UNKNOWN: { status: 401, when: "An identity provider's token names a key (`kid`) its provider does not publish (e.g. rotated out)." },
  TOKEN_PROVIDER_UNAVAILABLE: {
    status: 401,
    when: "The identity provider's discovery document or JWKS could not be fetched within OIDC_HTTP_TIMEOUT_MS; retry shortly.",
  },
  TOKEN_NOT_LINKED: { status: 401, when: "An identity provider's token whose `iss` + `sub` is linked to nobody here." },
  ACCOUNT_INACTIVE: { status: 401, when: "An identity provider's token for an account that is deactivated or deleted." },
  REFRESH_TOKEN_INVALID: {
    status: 401,
    when: "POST /api/v1/auth/refresh without a live refresh cookie: missing, expired, revoked, already used (which revokes its whole family) or of a deactivated account.",
  },
  CSRF_CHECK_FAILED: { status: 403, when: "Refresh or sign-out without the `X-Requested-With` header, or with an `Origin` of another site." },
  PROVIDER_UNREACHABLE: {
    status: 422,
    when: "Saving an identity provider whose issuer could not be reached at an allowed address (public, or within OUTBOUND_ALLOWED_CIDRS) within OIDC_HTTP_TIMEOUT_MS, or is not an OpenID Provider. One message whatever the cause; the reason is in the server log. Nothing was saved.",
  },
  TEST_SIGN_IN_UNSUPPORTED: { status: 422, when: "A test sign-in asked for a SAML provider: it runs for OpenID Connect providers only." },
  SAML_METADATA_INVALID: {
    status: 422,
    when: "Saving a SAML provider whose IdP metadata is not acceptable: not XML, a document type declaration, not exactly one IdP, no HTTP-Redirect SingleSignOnService or no signing certificate. Nothing was saved.",
  },
  SAML_METADATA_UNREACHABLE: {
    status: 422,
    when: "Saving a SAML provider by `metadata_url` that could not be fetched from an allowed address (public, or within OUTBOUND_ALLOWED_CIDRS) within OIDC_HTTP_TIMEOUT_MS. Nothing was saved.",
  },
  CLIENT_SECRET_REQUIRED: {
    status: 422,
    when: "Changing an identity provider's `issuer` or `client_id` without giving `client_secret` again (or `null` to clear it): a stored secret is only sent to the issuer it was given for. Nothing was saved.",
  },
  DOMAIN_CLAIMED: {
    status: 409,
    when: "Claiming an email domain (adding, verifying or approving it, or listing it in a provider's `allowed_domains`) that another organisation has verified: a domain signs people in to one organisation only. Nothing is stored.",
  },
  DOMAIN_HAS_PROVIDER: {
    status: 409,
    when: "Saving an enabled identity provider that lists an email domain another enabled provider of the organisation lists: a domain signs in through one provider of an organisation. Adds `provider_id` (the other provider) and `domains`. Nothing is stored.",
  },
  SEVERAL_IDENTITY_PROVIDERS: {
    status: 409,
    when: "The single-provider routes (`/identity-provider`) of an organisation that has several providers: address one by its id (`/identity-providers/{providerId}`). Adds `provider_ids`. Nothing is changed.",
  },
  IDENTITY_PROVIDER_LIMIT: {
    status: 409,
    when: "Adding an identity provider to an organisation that has the most it may have (adds `limit`); remove one first.",
  },
  DOMAIN_IN_USE: {
    status: 409,
    when: "Adding an email domain on which people of another organisation already have addresses while this one has none; the platform operator may approve it after checking who owns it. Nothing is stored.",
  },
  PUBLIC_EMAIL_DOMAIN: { status: 422, when: "Claiming a public mail domain (gmail.com, outlook.com, …): no organisation may own one. Nothing is stored." },
  DOMAIN_TXT_MISSING: {
    status: 409,
    when: "Verifying a domain whose `_skillnet-challenge` TXT record is not there or holds another value; the domain stays pending.",
  },
  DNS_LOOKUP_FAILED: { status: 503, when: "Verifying a domain while DNS did not answer (timeout, refused); the domain stays pending. Try again." },
  EMAIL_UNAVAILABLE: {
    status: 409,
    when: "Adding a person whose address another organisation keeps: someone there has it, or it verified the domain. One answer for both; it names neither. Nothing is stored.",
  },
  SECRETS_KEY_MISSING: { status: 503, when: "Storing an identity provider's client secret while the server has no SECRETS_KEY." },
  FORBIDDEN: { status: 403, when: "The role is not allowed (admins only; Bull Board and board codes: admins of OPS_ORG)." },
  INTEGRATION_KEY_INVALID: {
    status: 401,
    when: "An integration endpoint without a live integration key (`Authorization: Bearer skn_…`): missing, unknown, revoked or expired.",
  },
  INTEGRATION_KEY_CREATOR_INACTIVE: {
    status: 401,
    when: "An integration key whose creator is no longer an active admin of its organisation (demoted, deactivated, erased or deleted); an admin must create a new key.",
  },
  INTEGRATION_KEY_LIMIT: {
    status: 409,
    when: "Creating an integration key while the organisation already holds the most unrevoked, unexpired keys it may (adds `limit`); revoke one first.",
  },
  UNKNOWN_REFERENCE: {
    status: 400,
    when: "A catalog record names a course, module, lesson, exercise, skill, category, document or person (by its `external_id` or email) that the organisation does not have. Nothing is stored.",
  },
  INTEGRATION_SCOPE_MISSING: { status: 403, when: "The integration key lacks the scope this endpoint needs (named in `scope`)." },
  AI_ALLOWANCE_EXHAUSTED: {
    status: 402,
    when: "The organisation's AI allowance for the month and its credits are spent; adds `resets_at`. Nothing was stored.",
  },
  COURSE_NOT_AVAILABLE: { status: 403, when: "The turn names a course (or lesson) the caller may not use: not enrolled, or archived." },
  NOT_FOUND: { status: 404, when: "Unknown route, or a resource that does not exist or is not yours; dev-login disabled." },
  METHOD_NOT_ALLOWED: { status: 405, when: "A known path with another method." },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, when: "A request with the same Idempotency-Key is still running; adds `retry_after`." },
  TURN_IN_PROGRESS: { status: 409, when: "An admin message while the session's previous turn is still being answered; adds `turn_id`." },
  TURN_ALREADY_FINISHED: { status: 409, when: "The turn has already ended; `turn_status` says how." },
  DOCUMENT_IN_USE: { status: 409, when: "Deleting a course's source document without `force=true`; `courses` lists them." },
  DOCUMENT_DUPLICATE: {
    status: 409,
    when: "PUT /api/v1/integrations/documents/:external_id with bytes another document of the organisation already has; `duplicate_of` names it. Nothing changed.",
  },
  EXTERNAL_ID_TAKEN: { status: 409, when: "Renaming a sourced document to an external_id another document of the organisation has. Nothing changes." },
  ACTION_NOT_PENDING: { status: 409, when: "The admin action is no longer pending; `status` says what it is." },
  ACTION_EXPIRED: { status: 409, when: "Confirming, rejecting or resuming an admin action after ADMIN_ACTION_TTL_SECONDS." },
  ACTION_NOT_RESUMABLE: { status: 409, when: "Resuming an admin action that is not `partial`, `failed` or `stopped`." },
  ACTION_NOT_RUNNING: { status: 409, when: "Stopping an admin action that is neither queued (`confirmed`) nor `running`; `status` says what it is." },
  STORAGE_QUOTA_EXCEEDED: {
    status: 409,
    when: "The upload would take the organisation past its storage quota; adds `used_bytes`, `quota_bytes` and `file_bytes`. Nothing is stored.",
  },
  SELF_DEMOTION: { status: 409, when: "An admin removing their own admin role or deactivating themselves. Nothing changes." },
  LAST_ADMIN: { status: 409, when: "A change that would leave the organisation without an active admin. Nothing changes." },
  SLUG_TAKEN: { status: 409, when: "Creating an organisation whose slug another one has; adds `slug`." },
  EMAIL_TAKEN: {
    status: 409,
    when: "Adding a person whose email address someone in this organisation already has, or (operator) creating an organisation whose first admin's address someone already has.",
  },
  ERASURE_NOT_CONFIRMED: {
    status: 400,
    when: "Erasing a person without `confirm` set to their email address. Nothing changes.",
  },
  PERSON_ERASED: { status: 409, when: "Exporting, erasing or changing a person whose data was erased. Nothing changes." },
  SELF_ERASURE: { status: 409, when: "An admin erasing themselves; another admin of the organisation can. Nothing changes." },
  CONFIRMATION_MISMATCH: { status: 409, when: "Deleting an organisation without `confirm` set to its slug; adds `slug`. Nothing changes." },
  OPERATOR_ORGANISATION: { status: 409, when: "Deleting the operator organisation (OPS_ORG) itself." },
  ORGANISATION_DELETING: { status: 409, when: "Changing an organisation that is being deleted." },
  IMPORTS_PENDING: {
    status: 409,
    when: "A bulk import while the organisation already has 3 waiting or running; adds `pending` and `limit`. Send it when one has ended; nothing is stored.",
  },
  RECORD_CONFLICT: {
    status: 409,
    when: "A catalog record could not be applied as sent: deleting a course documents are restricted to, or a simultaneous write of the same record. Nothing is stored.",
  },
  ATTACHMENT_LIMIT: {
    status: 409,
    when: "Past an attachment limit: 20 files or 50 MB in a conversation, 5 files or 20 MB in one message; adds `limit_files` or `limit_bytes`. Nothing is stored.",
  },
  ATTACHMENT_FAILED: {
    status: 409,
    when: "A question sent with a file that could not be read; adds `attachment_id`, `reason_code` and `recovery_hint`. Nothing is stored: remove the file or attach it again in another format.",
  },
  ATTACHMENT_PROCESSING: {
    status: 409,
    when: "A question sent with a file still being read; adds `attachment_id`. Send it once `attachment_status` says `ready`.",
  },
  ATTACHMENT_ALREADY_SENT: {
    status: 409,
    when: "A question sent with a file already sent with an earlier message (or by another question at the same moment: nothing is stored), or removing a sent file; adds `attachment_id`.",
  },
  NO_SOURCE_FILE: { status: 409, when: "Re-indexing a document that was seeded from text, not uploaded." },
  HOST_NOT_ALLOWED: { status: 421, when: "While dev-login is on, a Host header that is not this server's loopback name or PUBLIC_URL's host." },
  PAYLOAD_TOO_LARGE: { status: 413, when: "The JSON body is larger than 64 kB." },
  IMPORT_TOO_LARGE: { status: 413, when: "A bulk import larger than CATALOG_IMPORT_MAX_BYTES; adds `limit_bytes`. Nothing is stored." },
  FILE_TOO_LARGE: { status: 413, when: "The upload is larger than UPLOAD_MAX_BYTES; adds `limit_bytes`. Nothing is stored." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, when: "The body is not of the content type the route reads." },
  UNSUPPORTED_FILE_TYPE: { status: 415, when: "The file's content or name is not an accepted type; adds `allowed`." },
  IDEMPOTENCY_KEY_REUSED: { status: 422, when: "The Idempotency-Key was used before with a different request." },
  CONTENT_GAP_REPORTS_EXHAUSTED: {
    status: 429,
    when: "A content-gap report for a window start the organisation has not asked for this hour, past the distinct reports it may have computed per hour; adds `retry_after`, with a Retry-After header. Reports already asked for still answer.",
  },
  RATE_LIMITED: { status: 429, when: "Over a RATE_LIMIT_* setting; adds `retry_after` (and `limit`), with a Retry-After header." },
  INTERNAL_ERROR: { status: 500, when: "Anything unexpected; the details go to the log." },
  QUEUE_UNAVAILABLE: { status: 503, when: "Redis refused the job; see the route for what was kept." },
  SERVICE_UNAVAILABLE: { status: 503, when: "Redis or Postgres is unreachable; retry shortly." },
  DATABASE_TIMEOUT: { status: 503, when: "A statement ran past DATABASE_STATEMENT_TIMEOUT_MS; adds `retry_after`." },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
