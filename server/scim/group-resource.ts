/**
 * A SCIM Group and back: `displayName`, `externalId` and `members` (people of the same
 * organisation, by their SCIM id). What the group means here (department, admin, nothing) is not
 * a SCIM attribute: the organisation's admin maps it in the console.
 */
import type { ScimGroupFields, ScimGroupRow, ScimMember } from "../../db/queries/scim-groups";
import { coerced, scimError } from "./errors";
import { SCIMMY } from "./library";
import type { WriteMode } from "./user-resource";

interface GroupIn {
  displayName?: string;
  externalId?: string;
  members?: Array<{ value?: string }>;
}

/** `members` undefined leaves the attribute out (`excludedAttributes=members`, which Entra asks for). */
export function toScimGroup(row: ScimGroupRow, members: ScimMember[] | undefined, base: string, attributes?: SCIMMY.Types.Filter): SCIMMY.Schemas.Group {
  return new SCIMMY.Schemas.Group(
    {
      id: row.id,
      ...(row.external_id ? { externalId: row.external_id } : {}),
      displayName: row.display_name,
      ...(members && members.length > 0 ? { members: members.map((m) => ({ value: m.value, display: m.display })) } : {}),
      meta: { created: row.created_at, lastModified: row.updated_at },
    },
    "out",
    base,
    attributes,
  );
}

export function parseScimGroup(body: unknown): SCIMMY.Schemas.Group {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw scimError(400, "invalidSyntax", "The body is a single Group object");
  return coerced(() => new SCIMMY.Schemas.Group(body, "in"));
}

export function fromScimGroup(instance: SCIMMY.Schemas.Group, mode: WriteMode, current?: ScimGroupRow): ScimGroupFields {
  const group = instance as unknown as GroupIn;
  const displayName = group.displayName?.trim();
  if (!displayName || displayName.length > 200) throw scimError(400, "invalidValue", "displayName is required (at most 200 characters)");
  const externalId = group.externalId?.trim() || null;
  const members = group.members?.map((member) => member.value?.trim() ?? "").filter(Boolean);
  return {
    display_name: displayName,
    external_id: externalId ?? (mode === "put" ? (current?.external_id ?? null) : null),
    // A PUT without members does not assert them; a patched state without members has none.
    member_ids: members ?? (mode === "put" ? undefined : []),
  };
}
