/**
 * An organisation's slug: how operators (the CLI's `--org`, OPS_ORG) and sign-in pages name it.
 * Lower-case letters, digits and single hyphens, 2–63 characters, so it fits a URL path, a
 * subdomain and a log line as typed. Derived from the name when the operator gives none.
 */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,62}$/;

/** "Beta Logistics, S.A." → "beta-logistics-s-a"; accents folded; empty when nothing usable is left. */
export function slugFromName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}
