/**
 * A person as a SCIM User and back. `userName` is the person's email address, lower-cased (emails
 * are unique across the platform and are how people sign in); `name.formatted` (or given + family
 * name, or `displayName`) is their name; `title` their job title; the enterprise extension's
 * `department` their department; `active` whether they may sign in. What a request leaves out:
 * a POST gets defaults, a PUT keeps what is stored for attributes that are not asserted, and a
 * patched resource (the whole state after the operations) clears what the patch removed.
 */
import type { ScimUserFields, ScimUserRow } from "../../db/queries/scim-users";
import { coerced, scimError } from "./errors";
import { ENTERPRISE_USER, SCIMMY } from "./library";
import { normaliseStringBooleans } from "./patch";

export type WriteMode = "create" | "put" | "patch";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface UserIn {
  userName?: string;
  externalId?: string;
  displayName?: string;
  title?: string;
  active?: boolean;
  preferredLanguage?: string;
  locale?: string;
  name?: { formatted?: string; givenName?: string; familyName?: string };
  [ENTERPRISE_USER]?: { department?: string };
}

/** The SCIM User we return (meta.location under `base`, e.g. `https://host/scim/v2/Users`). */
export function toScimUser(row: ScimUserRow, base: string, attributes?: SCIMMY.Types.Filter): SCIMMY.Schemas.User {
  return new SCIMMY.Schemas.User(
    {
      id: row.id,
      ...(row.external_id ? { externalId: row.external_id } : {}),
      userName: row.email,
      name: {
        formatted: row.name,
        ...(row.given_name ? { givenName: row.given_name } : {}),
        ...(row.family_name ? { familyName: row.family_name } : {}),
      },
      displayName: row.name,
      active: row.is_active,
      ...(row.job_title ? { title: row.job_title } : {}),
      preferredLanguage: row.locale,
      emails: [{ value: row.email, type: "work", primary: true }],
      ...(row.department ? { [ENTERPRISE_USER]: { department: row.department } } : {}),
      meta: { created: row.created_at },
    },
    "out",
    base,
    attributes,
  );
}

/** A request's User body, coerced by the library's schema (400 naming the attribute on a mismatch). */
export function parseScimUser(body: unknown): SCIMMY.Schemas.User {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw scimError(400, "invalidSyntax", "The body is a single User object");
  return coerced(() => new SCIMMY.Schemas.User(normaliseStringBooleans(SCIMMY.Schemas.User, body), "in"));
}

const text = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** The language of a BCP 47 tag ("fr-CA" → "fr"); nothing for a tag that does not start with an ISO 639-1 code. */
function localeOf(user: UserIn): string | undefined {
  const tag = (user.preferredLanguage ?? user.locale ?? "").toLowerCase();
  return /^([a-z]{2})(?:[-_]|$)/.exec(tag)?.[1];
}

function nameOf(user: UserIn, email: string, current: ScimUserRow | undefined): Pick<ScimUserFields, "name" | "given_name" | "family_name"> {
  const given = text(user.name?.givenName) ?? null;
  const family = text(user.name?.familyName) ?? null;
  const formatted = text(user.name?.formatted);
  const joined = [given, family].filter(Boolean).join(" ") || undefined;
  const partsChanged = !current || given !== current.given_name || family !== current.family_name;
  let name: string;
  if (formatted && (!current || formatted !== current.name)) name = formatted;
  else if (joined && partsChanged) name = joined;
  else name = current?.name ?? formatted ?? joined ?? text(user.displayName) ?? email.split("@")[0]!;
  return { name: name.slice(0, 200), given_name: given, family_name: family };
}

/** What to store for a User the identity system sent, given the stored person (PUT, PATCH). */
export function fromScimUser(instance: SCIMMY.Schemas.User, mode: WriteMode, current?: ScimUserRow): ScimUserFields {
  const user = instance as unknown as UserIn;
  const email = (user.userName ?? "").trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw scimError(400, "invalidValue", "userName must be the person's email address");
  const keep = mode === "put";
  const title = text(user.title);
  const department = text(user[ENTERPRISE_USER]?.department);
  return {
    email,
    ...nameOf(user, email, current),
    external_id: text(user.externalId) ?? (keep ? (current?.external_id ?? null) : null),
    is_active: typeof user.active === "boolean" ? user.active : (current?.is_active ?? true),
    job_title: title ?? (keep ? undefined : null),
    department: department ?? (keep ? undefined : null),
    locale: localeOf(user),
  };
}
