/**
 * What we keep of an identity provider's SAML metadata: its entity id, where to send an
 * AuthnRequest (HTTP-Redirect binding), where to send a LogoutRequest (if it offers single
 * logout), and every certificate it signs with (several during a key rollover). Read from the
 * XML with @xmldom/xmldom after safe-xml.ts refused anything with a DOCTYPE.
 */
import type { Document, Element } from "@xmldom/xmldom";
import { parseSafeXml } from "./safe-xml";

const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";
export const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

export interface IdpMetadata {
  entity_id: string;
  sso_url: string;
  slo_url: string | null;
  signing_certificates: string[];
}

export class IdpMetadataInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IdpMetadataInvalid";
  }
}

function children(parent: Element, namespace: string, name: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS(namespace, name));
}

function httpUrl(value: string | null, what: string): string {
  try {
    const url = new URL(value ?? "");
    if (url.protocol === "https:" || url.protocol === "http:") return url.href;
  } catch {}
  throw new IdpMetadataInvalid(`${what} is not an http(s) URL`);
}

function redirectLocation(idp: Element, service: string): string | null {
  const found = children(idp, MD, service).find((element) => element.getAttribute("Binding") === REDIRECT_BINDING);
  return found ? httpUrl(found.getAttribute("Location"), service) : null;
}

function signingCertificates(idp: Element): string[] {
  const keys = children(idp, MD, "KeyDescriptor").filter((key) => (key.getAttribute("use") ?? "signing") === "signing");
  const certificates = keys.flatMap((key) => children(key, DS, "X509Certificate").map((cert) => (cert.textContent ?? "").replace(/\s+/g, "")));
  return [...new Set(certificates.filter((cert) => /^[A-Za-z0-9+/]+=*$/.test(cert)))];
}

/** The first entity with an IdP role (an EntityDescriptor, or the only IdP of an EntitiesDescriptor). */
export function readIdpMetadata(xml: string): IdpMetadata {
  let doc: Document;
  try {
    doc = parseSafeXml(xml, 2 * 1024 * 1024);
  } catch (error) {
    throw new IdpMetadataInvalid(`the metadata is not acceptable XML: ${(error as Error).message}`);
  }
  const root = doc.documentElement!;
  const entities = children(root, MD, "EntityDescriptor");
  if (root.localName === "EntityDescriptor" && root.namespaceURI === MD) entities.unshift(root);
  const withIdp = entities.filter((entity) => children(entity, MD, "IDPSSODescriptor").length > 0);
  if (withIdp.length !== 1) throw new IdpMetadataInvalid(`the metadata must describe exactly one identity provider (found ${withIdp.length})`);
  const entity = withIdp[0]!;
  const idp = children(entity, MD, "IDPSSODescriptor")[0]!;
  const entityId = entity.getAttribute("entityID")?.trim();
  if (!entityId) throw new IdpMetadataInvalid("the EntityDescriptor has no entityID");
  const ssoUrl = redirectLocation(idp, "SingleSignOnService");
  if (!ssoUrl) throw new IdpMetadataInvalid("the identity provider offers no SingleSignOnService with the HTTP-Redirect binding");
  const certificates = signingCertificates(idp);
  if (certificates.length === 0) throw new IdpMetadataInvalid("the identity provider lists no signing certificate");
  return { entity_id: entityId, sso_url: ssoUrl, slo_url: redirectLocation(idp, "SingleLogoutService"), signing_certificates: certificates };
}
