/** Request and response shapes of the operator's organisations API (`/api/v1/ops/orgs`). */
import { z } from "zod";
import { SLUG_PATTERN } from "../../../lib/organisation-slug";

export const orgParams = z.object({ id: z.uuid({ error: "organisation id must be a UUID" }) });

export const listOrgsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const slug = z.string().trim().regex(SLUG_PATTERN, "2-63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit");
const name = z.string().trim().min(1).max(200);

export const createOrgBody = z.strictObject({
  name,
  slug: slug.optional(),
  admin: z.strictObject({ email: z.email().max(320), name: z.string().trim().min(1).max(200).optional() }),
});

export const updateOrgBody = z
  .strictObject({
    name: name.optional(),
    /** null: back to ORG_STORAGE_QUOTA_BYTES. */
    storage_quota_bytes: z.number().int().min(1024).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
  })
  .refine((body) => body.name !== undefined || body.storage_quota_bytes !== undefined, { message: "give name and/or storage_quota_bytes" });

export const deleteOrgQuery = z.object({ confirm: z.string().optional() });

const organisation = z.strictObject({
  id: z.uuid(),
  slug: z.string(),
  name: z.string(),
  storage_quota_bytes: z.number().nullable().describe("null: ORG_STORAGE_QUOTA_BYTES applies"),
  deleting_since: z.string().nullable(),
  created_at: z.string(),
});

export const orgResponse = z.strictObject({ organisation });
export const createdOrgResponse = z.strictObject({ organisation, admin: z.strictObject({ id: z.uuid(), email: z.string() }) });
export const orgsResponse = z.strictObject({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  organisations: z.array(organisation.extend({ people: z.number().int(), documents: z.number().int() })),
});

export const deletionResponse = z.strictObject({
  deletion: z.strictObject({
    id: z.uuid(),
    org_id: z.uuid(),
    slug: z.string(),
    status: z.enum(["queued", "running", "completed", "failed"]),
    step: z.string().nullable(),
    removed: z
      .record(z.string(), z.number())
      .describe("What was removed so far, by kind: `rows.<table>`, `files`, `file_bytes`, `vector_indexes`, `redis_keys`, `jobs`…"),
    error: z.string().nullable(),
    error_code: z
      .string()
      .nullable()
      .describe(
        "Why it failed: DATABASE_ERROR, DATABASE_TIMEOUT, DATABASE_UNAVAILABLE or INTERNAL_ERROR (details in the log), QUEUE_UNAVAILABLE; null unless failed.",
      ),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  }),
});
