/**
 * What every organisation gets unless an operator set its own (`npm run org`, `/api/v1/ops/orgs`).
 */
import { z } from "zod";
import { defineSection } from "../lib/settings-section";

export const organisationDefaultSettings = defineSection({
  environment: {
    AI_MONTHLY_TOKENS_PER_ORG: z.coerce
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        "Model tokens each organisation may use per calendar month (UTC), before its credits; 0 = unlimited (the self-hosted default). An operator sets one organisation's own allowance with `PUT /api/v1/ops/orgs/:orgId/ai-allowance`.",
      ),
    ORG_STORAGE_QUOTA_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024 * 1024)
      .describe(
        "Uploaded files an organisation may store in total (1 GB; an organisation's `storage_quota_bytes` overrides it). An upload past it " +
          "answers `409 STORAGE_QUOTA_EXCEEDED` and stores nothing; `GET /api/v1/documents` reports `storage` (used and quota).",
      ),
  },
  why: {
    AI_MONTHLY_TOKENS_PER_ORG: "You bill or cap model use: the monthly token allowance of every organisation without its own.",
    ORG_STORAGE_QUOTA_BYTES: "The file storage every organisation gets unless an operator set its own.",
  },
});
