/**
 * PostgreSQL's text and jsonb cannot hold a NUL character (U+0000): a value carrying one fails the
 * insert with 22021/22P05, which would surface as a 500. Input is checked for it at the edge, once,
 * so every route and the SCIM endpoint refuse it as bad input instead.
 */
const MAX_DEPTH = 32;

/** Where the first string holding U+0000 is in this parsed JSON value (`""` for the value itself), or undefined. */
export function nulPath(value: unknown, depth = 0): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? "" : undefined;
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  for (const [key, item] of entries) {
    if (key.includes("\u0000")) return key.replaceAll("\u0000", "\\u0000");
    const inner = nulPath(item, depth + 1);
    if (inner !== undefined) return inner === "" ? key : `${key}.${inner}`;
  }
  return undefined;
}
