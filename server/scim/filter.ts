/**
 * A SCIM `filter` parameter, parsed by the library (RFC 7644 §3.4.2.2 grammar, 400 `invalidFilter`
 * on a syntax error), turned into the data layer's OR-of-ANDs over the attributes a resource
 * type can filter on. What that cannot express — `not`, an unknown attribute, a comparison
 * without a value, `gt`/`lt` on strings — is a 400 `invalidFilter` naming it, never a scan.
 */
import type { ScimCondition, ScimOperator, ScimWhere } from "../../db/queries/scim-filter";
import { scimError } from "./errors";
import { SCIMMY } from "./library";

const OPERATORS: readonly ScimOperator[] = ["eq", "ne", "co", "sw", "ew", "pr"];
const CORE_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;

/** The filterable attributes of a resource type: SCIM name → whether its value is a boolean. */
export type Filterable = Record<string, { boolean?: boolean }>;

const invalid = (detail: string) => scimError(400, "invalidFilter", detail);

function comparisons(spec: unknown): unknown[][] {
  if (!Array.isArray(spec)) return [];
  return Array.isArray(spec[0]) ? (spec as unknown[][]) : [spec];
}

function conditionsOf(path: string, spec: unknown, filterable: Filterable, byLowerName: Map<string, string>): ScimCondition[] {
  if (spec && typeof spec === "object" && !Array.isArray(spec)) {
    return Object.entries(spec).flatMap(([sub, inner]) => conditionsOf(`${path}.${sub}`, inner, filterable, byLowerName));
  }
  const attribute = byLowerName.get(path.replace(CORE_PREFIX, "").toLowerCase());
  if (!attribute) throw invalid(`Filtering on '${path}' is not supported; supported: ${Object.keys(filterable).join(", ")}`);
  return comparisons(spec).map((comparison) => {
    const [op, value, extra] = comparison;
    const operator = String(op).toLowerCase() as ScimOperator;
    if (operator === ("not" as ScimOperator)) throw invalid("'not' filters are not supported");
    if (!OPERATORS.includes(operator)) throw invalid(`Operator '${String(op)}' is not supported on '${path}'`);
    if (operator === "pr") return { attribute, op: operator };
    if (value === undefined || extra !== undefined) throw invalid(`Comparison on '${path}' needs exactly one value`);
    if (filterable[attribute]?.boolean) {
      if (typeof value !== "boolean" || !["eq", "ne"].includes(operator)) throw invalid(`'${path}' compares with eq or ne and true or false`);
      return { attribute, op: operator, value };
    }
    if (typeof value !== "string") throw invalid(`'${path}' compares with a string value`);
    return { attribute, op: operator, value };
  });
}

/** Parses `filter` (undefined or empty = everything) into conditions on `filterable`'s attributes. */
export function parseScimFilter(filter: string | undefined, filterable: Filterable): ScimWhere {
  if (filter === undefined || filter.trim() === "") return [];
  let parsed: SCIMMY.Types.Filter;
  try {
    parsed = new SCIMMY.Types.Filter(filter);
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) throw invalid(error.message);
    throw invalid(`The filter could not be parsed: ${(error as Error).message}`);
  }
  const byLowerName = new Map(Object.keys(filterable).map((name) => [name.toLowerCase(), name]));
  return [...parsed].map((group: Record<string, unknown>) =>
    Object.entries(group).flatMap(([path, spec]) => conditionsOf(path, spec, filterable, byLowerName)),
  );
}
