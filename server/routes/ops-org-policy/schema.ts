/** Request and response shapes of an organisation's policy in the operator's API (`/api/v1/ops/orgs/:id/policy`). */
import { z } from "zod";
import { POLICY_LIMIT_NAMES, POLICY_LIMITS, policyChangeSchema } from "../../../lib/organisation-policy";

export const policyParams = z.object({ id: z.uuid({ error: "organisation id must be a UUID" }) });

export const policyBody = policyChangeSchema;

const limits = (describe: (name: (typeof POLICY_LIMIT_NAMES)[number]) => string, optional: boolean) =>
  z.strictObject(
    Object.fromEntries(
      POLICY_LIMIT_NAMES.map((name) => {
        const value = z.number().int().describe(describe(name));
        return [name, optional ? value.optional() : value];
      }),
    ),
  );

export const policyResponse = z.strictObject({
  policy: z.strictObject({
    org_id: z.uuid(),
    slug: z.string(),
    set: limits((name) => `Set by an operator: ${POLICY_LIMITS[name].meaning}`, true).describe("The limits an operator set for this organisation."),
    effective: limits((name) => POLICY_LIMITS[name].meaning, false).describe("Every limit as it applies: the set ones over the product's defaults."),
  }),
});
