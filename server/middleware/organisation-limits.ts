/**
 * The rate limits of an organisation's requests, from its policy (lib/organisation-policy.ts;
 * defaults: server/middleware/settings.ts): read at each limited request (one primary-key read), so
 * an operator's change applies to the next one. The limiter itself only ever gets numbers.
 */
import { organisationPolicy } from "../../db/queries/organisation-policy";
import type { ServerDeps } from "../deps";

type Deps = Pick<ServerDeps, "db" | "config">;

export interface WindowLimits {
  perUser: number;
  perOrganisation: number;
}

/** Chat turns (`tutor`) or admin assistant turns (`admin`): per person and for the whole organisation. */
export async function turnLimitsOf(deps: Deps, orgId: string, agent: "tutor" | "admin"): Promise<WindowLimits> {
  const policy = await organisationPolicy(deps.db, deps.config, orgId);
  return agent === "tutor"
    ? { perUser: policy.tutor_messages_per_person_per_minute, perOrganisation: policy.tutor_messages_per_minute }
    : { perUser: policy.admin_turns_per_person_per_minute, perOrganisation: policy.admin_turns_per_minute };
}

/** Document uploads or re-indexes: per admin (or integration key) and for the whole organisation. */
export async function documentLimitsOf(deps: Deps, orgId: string, kind: "upload" | "reindex"): Promise<WindowLimits> {
  const policy = await organisationPolicy(deps.db, deps.config, orgId);
  return kind === "upload"
    ? { perUser: policy.uploads_per_person_per_minute, perOrganisation: policy.uploads_per_minute }
    : { perUser: policy.reindexes_per_person_per_minute, perOrganisation: policy.reindexes_per_minute };
}

/** Content-gap report requests per admin. */
export async function contentGapLimitOf(deps: Deps, orgId: string): Promise<number> {
  return (await organisationPolicy(deps.db, deps.config, orgId)).content_gap_reports_per_person_per_minute;
}
