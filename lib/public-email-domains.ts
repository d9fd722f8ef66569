/**
 * Public mail domains (gmail.com, outlook.com and some 8,700 others, from the `email-providers`
 * package's `all.json`): nobody's company, so no organisation may claim one. Loaded once.
 */
import providers from "email-providers/all.json" with { type: "json" };

const PUBLIC = new Set((providers as readonly string[]).map((domain) => domain.toLowerCase()));

export function isPublicEmailDomain(domain: string): boolean {
  return PUBLIC.has(domain.toLowerCase());
}
