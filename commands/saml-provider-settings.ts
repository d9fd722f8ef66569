/**
 * What a SAML provider change stores besides the common fields: the IdP metadata read from the
 * URL (fetched through the outbound guard the caller passes) or the uploaded XML — or the stored
 * metadata when the change gives neither — and our SP key pair for this provider, made once and
 * kept across changes (the IdP has our certificate; a new one would break its trust in us).
 */
import { Refusal } from "../lib/refusal";
import type { SecretBox } from "../lib/secret-box";
import { IdpMetadataInvalid, readIdpMetadata } from "../lib/saml/idp-metadata";
import { selfSignedKeyPair } from "../lib/self-signed-certificate";
import type { IdentityProviderRow } from "../db/queries/identity";
import type { SamlConfig } from "../db/queries/saml-config";
import type { SamlProviderFields } from "./saml-provider-fields";

/** Fetches IdP metadata (the routes and the CLI pass one built on the outbound client); throws when it cannot. */
export type MetadataFetch = (url: string) => Promise<string>;

export interface SamlStoredFields {
  saml_config: SamlConfig;
  sp_private_key_encrypted?: string;
  sp_certificate?: string;
}

async function metadataXml(fetchMetadata: MetadataFetch | undefined, url: string): Promise<string> {
  if (!fetchMetadata) throw new Refusal("unprocessable", "SAML_METADATA_UNREACHABLE", "Fetching IdP metadata by URL is not available here: give the XML");
  try {
    return await fetchMetadata(url);
  } catch (error) {
    throw new Refusal(
      "unprocessable",
      "SAML_METADATA_UNREACHABLE",
      `The IdP metadata at ${url} could not be fetched from an allowed address: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export async function samlStoredFields(
  secrets: SecretBox,
  fetchMetadata: MetadataFetch | undefined,
  change: SamlProviderFields,
  stored: IdentityProviderRow | undefined,
): Promise<SamlStoredFields> {
  const storedConfig = stored?.protocol === "saml" ? stored.saml_config : null;
  let metadata: Omit<SamlConfig, "allow_idp_initiated" | "metadata_url">;
  let metadataUrl: string | null;
  if (change.metadata_url !== undefined || change.metadata_xml !== undefined) {
    const xml = change.metadata_url !== undefined ? await metadataXml(fetchMetadata, change.metadata_url) : change.metadata_xml!;
    try {
      metadata = readIdpMetadata(xml);
    } catch (error) {
      if (!(error instanceof IdpMetadataInvalid)) throw error;
      throw new Refusal("unprocessable", "SAML_METADATA_INVALID", `The IdP metadata was refused: ${error.message}`);
    }
    metadataUrl = change.metadata_url ?? null;
  } else if (storedConfig) {
    metadata = storedConfig;
    metadataUrl = storedConfig.metadata_url;
  } else {
    throw new Refusal("invalid", "VALIDATION_ERROR", "A SAML provider needs its IdP metadata: give metadata_url or metadata_xml");
  }
  const saml_config: SamlConfig = {
    entity_id: metadata.entity_id,
    sso_url: metadata.sso_url,
    slo_url: metadata.slo_url,
    signing_certificates: metadata.signing_certificates,
    metadata_url: metadataUrl,
    allow_idp_initiated: change.allow_idp_initiated,
  };
  // Given again even when kept: the row an upsert proposes must satisfy the table's check on its own.
  if (stored?.sp_private_key_encrypted && stored.sp_certificate && secrets.open(stored.sp_private_key_encrypted) !== null)
    return { saml_config, sp_private_key_encrypted: stored.sp_private_key_encrypted, sp_certificate: stored.sp_certificate };
  const pair = selfSignedKeyPair(`skillnet SAML SP ${stored?.id ?? "new"}`);
  return { saml_config, sp_private_key_encrypted: secrets.seal(pair.privateKeyPem), sp_certificate: pair.certificatePem };
}
