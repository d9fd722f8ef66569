/**
 * What an integration key may do. Write scopes are audited on every use (one audit row per
 * request, naming the key); read scopes only touch the key's last-used time.
 */
export const INTEGRATION_SCOPES = ["catalog:write", "documents:write", "usage:read", "people:read"] as const;
export type IntegrationScope = (typeof INTEGRATION_SCOPES)[number];

export const WRITE_SCOPES: ReadonlySet<IntegrationScope> = new Set(["catalog:write", "documents:write"]);

export const INTEGRATION_SCOPE_DESCRIPTIONS: Record<IntegrationScope, string> = {
  "catalog:write": "Courses, modules, lessons, skills, enrolments, progress and review schedules: upserts, deletes and bulk imports.",
  "documents:write": "Documents pushed or mirrored from their source (a folder, a drive): add, replace, remove.",
  "usage:read": "The organisation's AI usage report.",
  "people:read": "The organisation's people: names, emails, departments, roles, whether active.",
};
