/**
 * The shapes of `/scim/v2` for the OpenAPI document. Loose on purpose: a SCIM body is checked by
 * the SCIM library against the User and Group schemas (RFC 7643), which `/scim/v2/Schemas`
 * publishes in full; these name the attributes we read and return.
 */
import { z } from "zod";

const meta = z.looseObject({ resourceType: z.string(), location: z.string().optional(), created: z.string().optional(), lastModified: z.string().optional() });

export const scimUser = z.looseObject({
  schemas: z.array(z.string()).optional(),
  id: z.string().optional().describe("Ours; read-only."),
  externalId: z.string().optional().describe("The identity system's id for the person (unique in the organisation)."),
  userName: z.string().describe("The person's email address (stored lower-cased; unique across the platform)."),
  name: z.looseObject({ formatted: z.string().optional(), givenName: z.string().optional(), familyName: z.string().optional() }).optional(),
  displayName: z.string().optional(),
  title: z.string().optional().describe("Job title."),
  active: z.union([z.boolean(), z.string()]).optional().describe('false deactivates (Entra\'s "False" is read as false).'),
  preferredLanguage: z.string().optional().describe("A BCP 47 tag; its ISO 639-1 language (fr-CA → fr) sets the person's language."),
  emails: z.array(z.looseObject({ value: z.string(), type: z.string().optional(), primary: z.boolean().optional() })).optional(),
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": z.looseObject({ department: z.string().optional() }).optional(),
  meta: meta.optional(),
});

export const scimGroup = z.looseObject({
  schemas: z.array(z.string()).optional(),
  id: z.string().optional(),
  externalId: z.string().optional(),
  displayName: z.string(),
  members: z.array(z.looseObject({ value: z.string(), display: z.string().optional() })).optional(),
  meta: meta.optional(),
});

export const scimPatchOp = z.looseObject({
  schemas: z.array(z.literal("urn:ietf:params:scim:api:messages:2.0:PatchOp")),
  Operations: z.array(
    z.looseObject({
      op: z.string().describe("add, remove or replace (any case)."),
      path: z.string().optional(),
      value: z.unknown().optional(),
    }),
  ),
});

export const scimListResponse = z.looseObject({
  schemas: z.array(z.literal("urn:ietf:params:scim:api:messages:2.0:ListResponse")),
  totalResults: z.number().int(),
  startIndex: z.number().int(),
  itemsPerPage: z.number().int(),
  Resources: z.array(z.record(z.string(), z.unknown())),
});

export const scimDocument = z.record(z.string(), z.unknown());

export const scimErrorBody = z.object({
  schemas: z.array(z.literal("urn:ietf:params:scim:api:messages:2.0:Error")),
  status: z.string(),
  scimType: z.string().optional().describe("invalidFilter, invalidSyntax, invalidPath, invalidValue, noTarget, uniqueness, mutability…"),
  detail: z.string(),
});

export const scimIdParams = z.object({ id: z.string().max(200) });

/** startIndex is 1-based and below 1 counts as 1; count is capped at 200 (RFC 7644 §3.4.2.4). */
export const scimListQuery = z.looseObject({
  filter: z.string().max(4000).optional().describe('e.g. userName eq "ana@example.com", externalId eq "…", displayName eq "…", emails.value eq "…".'),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
  attributes: z.string().max(2000).optional(),
  excludedAttributes: z.string().max(2000).optional().describe("excludedAttributes=members lists groups without their members."),
});

export const scimGetQuery = z.looseObject({
  attributes: z.string().max(2000).optional(),
  excludedAttributes: z.string().max(2000).optional(),
});
