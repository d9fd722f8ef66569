/** A resource id in a SCIM path: ours are UUIDs, so anything else is simply not found (never a database error). */
import { scimError } from "../../scim/errors";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function resourceId(id: string, what: "User" | "Group"): string {
  if (!UUID.test(id)) throw notFound(what, id);
  return id.toLowerCase();
}

export const notFound = (what: "User" | "Group", id: string) => scimError(404, undefined, `${what} ${id.slice(0, 64)} not found`);
