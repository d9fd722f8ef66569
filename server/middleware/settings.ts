/**
 * HTTP rate limits. The per-person and per-organisation limits of chat, uploads, re-index and content gaps are organisation policy (db/queries/organisation-policy.ts): these are their defaults.
 */
import { z } from "zod";
import { defineSection } from "../../lib/settings-section";

export const rateLimitSettings = defineSection({
  tunables: {
    // The defaults of organisation policy for the per-person and per-organisation limits
    // (lib/organisation-policy.ts); the others bound what one address or token can make us store.
    RATE_LIMIT_SIGN_IN_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(300)
      .describe(
        "Single sign-on starts (`GET /api/v1/auth/oidc/:providerId/start`) per client IP per minute: each keeps a pending sign-in in Redis " +
          "for 10 min, so this bounds what one address can store. The public provider lookup (`GET /api/v1/auth/providers`) is counted " +
          "separately against the same number. Generous, because a company's people often share one address.",
      ),
    RATE_LIMIT_DEV_LOGIN_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(10)
      .describe("dev-login attempts per client IP per 60 s window (fixed, from its first request) (`429 RATE_LIMITED` past it)."),
    SCIM_RATE_LIMIT_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(1200)
      .describe(
        "SCIM requests (`/scim/v2`) per organisation's SCIM token per 60 s window (fixed, from its first request); past it a SCIM `429` with Retry-After, which " +
          "Okta and Entra ID honour. A full sync sends a few requests per person.",
      ),
    INTEGRATION_RATE_LIMIT_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(600)
      .describe(
        "Requests to the integration endpoints (`/api/v1/integrations`) per integration key per 60 s window (fixed, from its first request) (`429 RATE_LIMITED` " +
          "with `retry_after` past it). A bulk import is one request however many records it carries.",
      ),
    RATE_LIMIT_TUTOR_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(30)
      .describe("Tutor messages (`POST /api/v1/chat`) per user per 60 s window (fixed, from its first request)."),
    RATE_LIMIT_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).default(20).describe("Admin assistant turns (`POST /api/v1/chat/admin`) per admin per minute."),
    RATE_LIMIT_ORG_TUTOR_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(600)
      .describe("Tutor messages per organisation (all its users together) per minute."),
    RATE_LIMIT_ORG_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).default(100).describe("Admin assistant turns per organisation per minute."),
    // 120/300, not 30/120: one embedded worker indexes about 7 small documents a second (420/min),
    // so 30/min made a first day's folder of 300 pages take 10 min for no protection; the console
    // queues past the limit either way (issue 25).
    RATE_LIMIT_UPLOADS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(120)
      .describe("Document uploads per admin per minute (the admin console queues files past it and sends them when the server allows)."),
    RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: z.coerce.number().int().min(1).default(300).describe("Document uploads per organisation per minute."),
    RATE_LIMIT_REINDEX_PER_MINUTE: z.coerce.number().int().min(1).default(20).describe("Document re-index requests per admin per minute."),
    RATE_LIMIT_ORG_REINDEX_PER_MINUTE: z.coerce.number().int().min(1).default(60).describe("Document re-index requests per organisation per minute."),
    RATE_LIMIT_CONTENT_GAPS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(60)
      .describe("Content-gap report requests per admin per minute (`429 RATE_LIMITED` past it); the page polls every 2 s while a report is computed."),
  },
});
