/** Request and response shapes of the admin's SCIM settings (`/api/v1/admin/scim`). */
import { z } from "zod";

const timestamp = z.iso.datetime({ offset: true });
const mapping = z.enum(["department", "admin"]).nullable();

const tokenStatus = z.strictObject({
  hint: z.string().describe("The token's last 4 characters."),
  created_at: timestamp,
  created_by: z.uuid().nullable(),
  last_used_at: timestamp.nullable(),
});

export const scimGroupSummary = z.strictObject({
  id: z.uuid(),
  display_name: z.string(),
  external_id: z.string().nullable(),
  mapping: mapping.describe("department: the group's name becomes its members' department; admin: its members are admins; null: nothing."),
  member_count: z.number().int(),
});

export const scimSettings = z.strictObject({
  base_url: z.string().describe("What to enter as the identity system's SCIM base / tenant URL."),
  token: tokenStatus.nullable().describe("null: no token; SCIM calls get 401."),
  groups: z.array(scimGroupSummary),
});

export const issuedScimToken = z.strictObject({
  token: z.string().describe("Shown once, here; only its hash is stored."),
  hint: z.string(),
  created_at: timestamp,
  rotated: z.boolean().describe("true: a previous token was replaced and no longer works."),
  base_url: z.string(),
});

export const groupMappingBody = z.strictObject({ mapping });
export const groupParams = z.object({ id: z.uuid() });

export type ScimSettings = z.infer<typeof scimSettings>;
export type IssuedScimToken = z.infer<typeof issuedScimToken>;
export type ScimGroupSummary = z.infer<typeof scimGroupSummary>;
