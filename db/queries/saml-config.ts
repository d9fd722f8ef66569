/**
 * A SAML identity provider's settings as stored in `identity_providers.saml_config`: what its
 * metadata said (lib/saml/idp-metadata.ts), where the metadata came from, and whether it may start
 * a sign-in itself (IdP-initiated, off unless the organisation turns it on).
 */
import { z } from "zod";

export const samlConfigSchema = z.object({
  entity_id: z.string().min(1).max(1000),
  sso_url: z.url(),
  slo_url: z.url().nullable(),
  signing_certificates: z.array(z.string().min(1)).min(1).max(10),
  metadata_url: z.url().nullable(),
  allow_idp_initiated: z.boolean(),
});
export type SamlConfig = z.infer<typeof samlConfigSchema>;

/** A stored value that no longer parses reads as null: the provider then cannot sign anyone in, rather than half-configured. */
export function parseSamlConfig(value: unknown): SamlConfig | null {
  const parsed = samlConfigSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
