/**
 * Public mail domains (gmail.com, outlook.com and some 8,700 others, from the `email-providers`
 * package's `all.json`): nobody's company, so no organisation may claim one. Loaded once.
 *
 * Read with `require` rather than `import … with { type: "json" }`: the production bundle keeps
 * packages external and drops import attributes, and Node refuses a JSON import without one.
 */
import { createRequire } from "node:module";

const providers = createRequire(import.meta.url)("email-providers/all.json") as readonly string[];
const PUBLIC = new Set(providers.map((domain) => domain.toLowerCase()));

export function isPublicEmailDomain(domain: string): boolean {
  return PUBLIC.has(domain.toLowerCase());
}
