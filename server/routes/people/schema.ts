/** Request and response shapes of the admin people API (the console's people page). */
import { z } from "zod";
import { PROVISIONED_VIA } from "../../../db/queries/admin-people";

export const MAX_PAGE = 200;

const role = z.enum(["admin", "employee"], { error: "role must be admin or employee" });
const locale = z.string({ error: "locale must be text" }).regex(/^[a-z]{2}$/, "locale must be an ISO 639-1 language code such as en, es, fr, de or pt");
const name = z.string({ error: "name must be text" }).trim().min(1, "name must not be empty").max(200, "name must be at most 200 characters");
/** An empty department or job title clears it. */
const optionalText = (field: string) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .max(120, `${field} must be at most 120 characters`)
    .nullable()
    .transform((value) => value || null);

export const personParams = z.object({ id: z.uuid({ error: "person id must be a UUID" }) });

export const listPeopleQuery = z.object({
  search: z
    .string()
    .trim()
    .max(200, "search must be at most 200 characters")
    .optional()
    .transform((value) => value || undefined)
    .describe("Part of a name or email, case- and accent-insensitive."),
  role: role.optional(),
  department: z.string().trim().max(120).optional().describe("Exactly this department (case- and accent-insensitive)."),
  active: z
    .enum(["true", "false"], { error: "active must be true or false" })
    .optional()
    .transform((value) => (value === undefined ? undefined : value === "true")),
  provisioned_via: z.enum(PROVISIONED_VIA, { error: `provisioned_via must be one of ${PROVISIONED_VIA.join(", ")}` }).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const createPersonBody = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ error: "email must be an email address" }).max(254, "email must be at most 254 characters")),
  name,
  role: role.default("employee"),
  department: optionalText("department").optional().default(null),
  job_title: optionalText("job_title").optional().default(null),
  locale: locale.default("es"),
});

export const updatePersonBody = z
  .strictObject({
    name: name.optional(),
    role: role.optional(),
    department: optionalText("department").optional(),
    job_title: optionalText("job_title").optional(),
    is_active: z.boolean({ error: "is_active must be true or false" }).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { error: "give at least one of name, role, department, job_title, is_active" });

const timestamp = z.iso.datetime({ offset: true });

export const personResponse = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  role,
  department: z.string().nullable(),
  job_title: z.string().nullable(),
  locale,
  is_active: z.boolean(),
  provisioned_via: z.enum(PROVISIONED_VIA).describe("How they arrived: the demo seed, SCIM, a first sign-in (jit), this API, or the org CLI."),
  created_at: timestamp,
  deactivated_at: timestamp.nullable(),
  last_sign_in_at: timestamp.nullable().describe("Their latest sign-in through the identity provider; null when never (or not through one)."),
  has_identity_link: z.boolean().describe("Whether an identity-provider account is linked to them."),
  erased_at: timestamp.nullable().describe('When their data was erased (the row is an anonymised placeholder, "Erased person"); null otherwise.'),
});

export type PersonBody = z.infer<typeof personResponse>;

export const peopleResponse = z.strictObject({
  people: z.array(personResponse),
  total: z.number().int().describe("People matching the filters, on every page."),
  limit: z.number().int(),
  offset: z.number().int(),
  next_offset: z.number().int().nullable().describe("The next page's offset; null on the last page."),
});

export type PeopleBody = z.infer<typeof peopleResponse>;

export const onePersonResponse = z.strictObject({ person: personResponse });
