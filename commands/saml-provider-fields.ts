/**
 * The SAML 2.0 part of an identity provider change (identity-provider-change.ts adds the fields
 * every provider has): where its IdP metadata comes from — a URL we fetch through the outbound
 * guard, or the XML itself — and whether the IdP may start a sign-in on its own.
 */
import { z } from "zod";

export const SAML_METADATA_MAX_CHARS = 2 * 1024 * 1024;

export const samlProviderFieldsSchema = z.strictObject({
  protocol: z.literal("saml"),
  metadata_url: z
    .url({ protocol: /^https?$/, error: "metadata_url must be an http(s) URL" })
    .max(2000)
    .optional()
    .describe("The IdP's SAML metadata, fetched now (HTTPS, or plain HTTP within OUTBOUND_ALLOWED_CIDRS) and kept with the URL."),
  metadata_xml: z
    .string()
    .min(1)
    .max(SAML_METADATA_MAX_CHARS)
    .optional()
    .describe("The IdP's SAML metadata as XML (an upload). A document type declaration is refused. Exclusive with metadata_url."),
  allow_idp_initiated: z
    .boolean()
    .default(false)
    .describe("Accept a sign-in the IdP starts itself (an unsolicited response, no InResponseTo). Off: only sign-ins started here."),
});

export type SamlProviderFields = z.output<typeof samlProviderFieldsSchema>;
