/**
 * An organisation's policy: the limits an operator sets per organisation (chat, uploads,
 * re-index and content-gap rate limits; the admin assistant's tool rounds and calls), beside its
 * AI allowance, storage quota and chat retention. A limit the operator has not set is the
 * product's default: the tunable of the same meaning (server/middleware/settings.ts,
 * workers/admin/settings.ts), so tests that shorten a tunable shorten every organisation's default.
 */
import { z } from "zod";
import type { Config } from "./config";

type Defaults = Pick<Config, "rateLimits" | "admin">;

interface PolicyLimit {
  /** The default, read from the configuration. */
  default: (config: Defaults) => number;
  max: number;
  meaning: string;
}

const PER_MINUTE_MAX = 1_000_000;

/** Every limit of the policy, by the name the ops API and the CLI use. */
export const POLICY_LIMITS = {
  tutor_messages_per_person_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Tutor messages (`POST /api/v1/chat`) per person per minute.",
  },
  tutor_messages_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_ORG_TUTOR_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Tutor messages per minute for the whole organisation.",
  },
  admin_turns_per_person_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_ADMIN_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Admin assistant turns per admin per minute.",
  },
  admin_turns_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_ORG_ADMIN_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Admin assistant turns per minute for the whole organisation.",
  },
  uploads_per_person_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_UPLOADS_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Document uploads per admin (or integration key) per minute.",
  },
  uploads_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_ORG_UPLOADS_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Document uploads per minute for the whole organisation.",
  },
  reindexes_per_person_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_REINDEX_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Document re-index requests per admin (or integration key) per minute.",
  },
  reindexes_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_ORG_REINDEX_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Document re-index requests per minute for the whole organisation.",
  },
  content_gap_reports_per_person_per_minute: {
    default: (config) => config.rateLimits.RATE_LIMIT_CONTENT_GAPS_PER_MINUTE,
    max: PER_MINUTE_MAX,
    meaning: "Content-gap report requests per admin per minute.",
  },
  admin_tool_rounds: {
    default: (config) => config.admin.ADMIN_MAX_TOOL_ROUNDS,
    max: 20,
    meaning: "Tool-calling rounds of one admin assistant turn before the model must answer.",
  },
  admin_tool_calls_per_round: {
    default: (config) => config.admin.ADMIN_MAX_TOOL_CALLS_PER_ROUND,
    max: 50,
    meaning: "Tool calls the admin assistant runs from one model reply.",
  },
} satisfies Record<string, PolicyLimit>;

export type PolicyLimitName = keyof typeof POLICY_LIMITS;

export const POLICY_LIMIT_NAMES = Object.keys(POLICY_LIMITS) as PolicyLimitName[];

/** The limits an operator set (missing: the default). */
export type StoredPolicy = Partial<Record<PolicyLimitName, number>>;

/** Every limit as it applies to the organisation. */
export type OrganisationPolicy = Record<PolicyLimitName, number>;

const limitValue = (name: PolicyLimitName) => z.number().int().min(1).max(POLICY_LIMITS[name].max, `${name} is at most ${POLICY_LIMITS[name].max}`);

/** What is stored: only limits the operator set, each in its bounds (a row edited by hand that breaks them is ignored). */
export const storedPolicySchema = z.object(
  Object.fromEntries(POLICY_LIMIT_NAMES.map((name) => [name, limitValue(name).optional()])),
) as z.ZodType<StoredPolicy>;

/** A change: a number sets a limit, null puts it back to the default; names not given stay as they are. */
export const policyChangeSchema = z
  .strictObject(Object.fromEntries(POLICY_LIMIT_NAMES.map((name) => [name, limitValue(name).nullable().optional()])))
  .refine((change) => Object.keys(change).length > 0, { message: `give at least one of ${POLICY_LIMIT_NAMES.join(", ")}` }) as z.ZodType<
  Partial<Record<PolicyLimitName, number | null>>
>;

export function applyPolicyChange(stored: StoredPolicy, change: Partial<Record<PolicyLimitName, number | null>>): StoredPolicy {
  const next: StoredPolicy = { ...stored };
  for (const name of POLICY_LIMIT_NAMES) {
    const value = change[name];
    if (value === null) delete next[name];
    else if (value !== undefined) next[name] = value;
  }
  return next;
}

/** The policy that applies: the operator's limits over the configuration's defaults. */
export function effectivePolicy(config: Defaults, stored: StoredPolicy): OrganisationPolicy {
  return Object.fromEntries(POLICY_LIMIT_NAMES.map((name) => [name, stored[name] ?? POLICY_LIMITS[name].default(config)])) as OrganisationPolicy;
}
