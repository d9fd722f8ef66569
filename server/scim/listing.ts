/**
 * List requests and answers: the page a `startIndex`/`count` asks for (1-based, count capped at
 * SCIM_MAX_RESULTS, default 100), the attributes a response includes, and the ListResponse
 * message itself. The message is built here rather than by the library's ListResponse, which
 * slices its input again as if it were the whole result set (wrong for a page read with OFFSET).
 */
import { scimError } from "./errors";
import { SCIM_MAX_RESULTS, SCIMMY } from "./library";

const LIST_RESPONSE = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const DEFAULT_COUNT = 100;

export interface Page {
  startIndex: number;
  offset: number;
  limit: number;
}

export function pageOf(query: { startIndex?: number; count?: number }): Page {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const limit = Math.min(SCIM_MAX_RESULTS, Math.max(0, query.count ?? DEFAULT_COUNT));
  return { startIndex, offset: startIndex - 1, limit };
}

export interface AttributeSelection {
  /** The library's attribute filter for the response's coercion; undefined = default attributes. */
  filter?: SCIMMY.Types.Filter;
  /** Whether an attribute named like this is in the response (to skip loading what is left out). */
  includes(name: string): boolean;
}

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5), parsed by the library. */
export function attributesOf(query: { attributes?: string; excludedAttributes?: string }): AttributeSelection {
  const listed = (value: string | undefined) =>
    (value ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
  const only = listed(query.attributes);
  const excluded = listed(query.excludedAttributes);
  let filter: SCIMMY.Types.Filter | undefined;
  try {
    if (only.length > 0)
      filter = new SCIMMY.Types.Filter(
        query
          .attributes!.split(",")
          .map((a) => `${a.trim()} pr`)
          .join(" and "),
      );
    else if (excluded.length > 0)
      filter = new SCIMMY.Types.Filter(
        query
          .excludedAttributes!.split(",")
          .map((a) => `${a.trim()} np`)
          .join(" and "),
      );
  } catch (error) {
    throw scimError(400, "invalidFilter", `attributes / excludedAttributes: ${(error as Error).message}`);
  }
  return {
    filter,
    includes: (name) => (only.length > 0 ? only.includes(name.toLowerCase()) : !excluded.includes(name.toLowerCase())),
  };
}

export function listResponse(resources: unknown[], total: number, page: Page): Record<string, unknown> {
  return { schemas: [LIST_RESPONSE], totalResults: total, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources };
}
