/** Request and response shapes of the integration keys API (admins) and the integration read endpoints (keys). */
import { z } from "zod";
import { INTEGRATION_SCOPE_DESCRIPTIONS, INTEGRATION_SCOPES } from "../../../lib/integration-scopes";

const timestamp = z.iso.datetime({ offset: true });
const scope = z.enum(INTEGRATION_SCOPES, { error: `scope must be one of ${INTEGRATION_SCOPES.join(", ")}` });
const scopesDescription = INTEGRATION_SCOPES.map((name) => `\`${name}\`: ${INTEGRATION_SCOPE_DESCRIPTIONS[name]}`).join(" ");

export const integrationKeyParams = z.object({ id: z.uuid({ error: "integration key id must be a UUID" }) });

export const createIntegrationKeyBody = z.strictObject({
  name: z.string({ error: "name must be text" }).trim().min(1, "name must not be empty").max(100, "name must be at most 100 characters"),
  scopes: z
    .array(scope, { error: "scopes must be a list" })
    .min(1, "give at least one scope")
    .refine((list) => new Set(list).size === list.length, { error: "scopes must not repeat" })
    .describe(scopesDescription),
  expires_at: z
    .string({ error: "expires_at must be an ISO 8601 date-time with an offset" })
    .pipe(timestamp)
    .refine((value) => Date.parse(value) > Date.now(), { error: "expires_at must be in the future" })
    .nullable()
    .optional()
    .describe("When the key stops working; null or absent for never."),
});

export const integrationKeyResponse = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(scope).describe(scopesDescription),
  hint: z.string().describe("The key's last four characters, to tell keys apart."),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable().describe("Its latest use, to the minute; null when never used."),
  revoked_at: timestamp.nullable(),
  created_by: z.uuid().nullable().describe("The admin who created it."),
});

export type IntegrationKeyBody = z.infer<typeof integrationKeyResponse>;

export const createdIntegrationKeyResponse = z.strictObject({
  key: z.string().describe("The key (`skn_…`), shown this once: only its hash is stored."),
  integration_key: integrationKeyResponse,
});

export const listedIntegrationKeyResponse = integrationKeyResponse.extend({
  creator_is_admin: z
    .boolean()
    .describe("Whether its creator is still an active admin of the organisation: a key works only while they are (else 401 INTEGRATION_KEY_CREATOR_INACTIVE)."),
});
export type ListedIntegrationKeyBody = z.infer<typeof listedIntegrationKeyResponse>;

export const integrationKeysResponse = z.strictObject({ integration_keys: z.array(listedIntegrationKeyResponse) });

export const MAX_PEOPLE_PAGE = 500;

export const integrationPeopleQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PEOPLE_PAGE).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

const integrationPerson = z.strictObject({
  id: z.uuid(),
  external_id: z.string().nullable().describe("The identity system's id for them (SCIM `externalId`), when it sent one."),
  email: z.string(),
  name: z.string(),
  department: z.string().nullable(),
  job_title: z.string().nullable(),
  role: z.enum(["admin", "employee"]),
  is_active: z.boolean(),
});

export const integrationPeopleResponse = z.strictObject({
  people: z.array(integrationPerson),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  next_offset: z.number().int().nullable().describe("The next page's offset; null on the last page."),
});
