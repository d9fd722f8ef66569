/**
 * `npm run org -- policy show|set`: the CLI's side of an organisation's policy
 * (lib/organisation-policy.ts). `set` takes `name=value` pairs, comma-separated
 * (`tutor_messages_per_minute=200,admin_tool_rounds=3`); `default` puts a limit back to the product's default.
 */
import type { Operator } from "../../commands/organisations";
import { changeOrganisationPolicy, type PolicyDeps, type PolicyView, showOrganisationPolicy } from "../../commands/organisation-policy";
import { POLICY_LIMIT_NAMES, POLICY_LIMITS, type PolicyLimitName, policyChangeSchema } from "../../lib/organisation-policy";
import type { Output } from "./org-output";

/** The change the pairs ask for, or why they cannot be read (a usage mistake). */
function policyChangeOf(text: string): { change: Partial<Record<PolicyLimitName, number | null>> } | { problem: string } {
  const change: Record<string, number | null> = {};
  for (const pair of text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([a-z_]+)=(default|\d+)$/.exec(pair);
    if (!match) return { problem: `"${pair}" is not name=number or name=default` };
    change[match[1]!] = match[2] === "default" ? null : Number(match[2]);
  }
  const parsed = policyChangeSchema.safeParse(change);
  if (!parsed.success) return { problem: parsed.error.issues.map((issue) => `${issue.path.join(".") || "policy"}: ${issue.message}`).join("; ") };
  return { change: parsed.data };
}

function printPolicy(out: Output, view: PolicyView): void {
  out.result({ org_id: view.orgId, slug: view.slug, set: view.stored, effective: view.effective }, [
    `${view.slug}:`,
    ...POLICY_LIMIT_NAMES.map(
      (name) => `  ${name} = ${view.effective[name]}${view.stored[name] === undefined ? " (default)" : ""}   ${POLICY_LIMITS[name].meaning}`,
    ),
  ]);
}

/** `policy show <org>` and `policy set <org> <pairs>`; a pair it cannot read is a usage mistake (`usage` makes the error). */
export async function runPolicyCommand(
  command: string,
  args: string[],
  session: { deps: PolicyDeps; operator: Operator; out: Output },
  usage: (problem: string) => Error,
): Promise<number> {
  const { deps, operator, out } = session;
  if (command === "policy show") {
    printPolicy(out, await showOrganisationPolicy(deps, args[0]!));
    return 0;
  }
  const asked = policyChangeOf(args[1]!);
  if ("problem" in asked) throw usage(asked.problem);
  printPolicy(out, await changeOrganisationPolicy(deps, operator, args[0]!, asked.change));
  return 0;
}
