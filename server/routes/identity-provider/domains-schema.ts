/** Request and response shapes of an organisation's email domains (claim, verify, approve). */
import { z } from "zod";
import { DOMAIN_NAME } from "../../../lib/domain-name";

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/\.$/, ""))
  .pipe(z.string().regex(DOMAIN_NAME, "domain must be a domain name like example.com"));

export const domainBody = z.strictObject({ domain: domain.describe("The email domain, exactly as in people's addresses (example.com).") });

export const domainParams = z.object({ id: z.uuid({ error: "the domain's id must be a UUID" }) });

export const domainView = z.strictObject({
  id: z.uuid(),
  domain: z.string(),
  status: z.enum(["pending", "verified"]).describe("Only a verified domain finds the provider on the sign-in page, creates people and keeps their addresses."),
  method: z.enum(["dns", "operator"]).nullable().describe("How it was verified: its TXT record, or the platform operator's approval."),
  verified_at: z.iso.datetime({ offset: true }).nullable(),
  created_at: z.iso.datetime({ offset: true }),
  txt_record: z
    .strictObject({ name: z.string(), type: z.literal("TXT"), value: z.string() })
    .describe("Publish this record in the domain's DNS (at its DNS host, not at the identity provider), then verify."),
});

export const domainResponse = z.strictObject({ domain: domainView });
export const domainsResponse = z.strictObject({ domains: z.array(domainView) });
