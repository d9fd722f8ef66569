/**
 * A SAML identity provider made of a key pair, for tests: its metadata, and responses built and
 * signed as an IdP would (xml-crypto through node-saml's signXml, RSA-SHA256, exclusive C14N) — or not, or by the wrong key,
 * or rearranged into a signature-wrapping attack — so the ACS can be shown refusing each.
 */
import { constants, createCipheriv, publicEncrypt, randomBytes, randomUUID } from "node:crypto";
import { signXml } from "@node-saml/node-saml/lib/xml";
import { type KeyPair, selfSignedKeyPair } from "../../lib/self-signed-certificate";

const certBody = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");

export interface AssertionSpec {
  nameId: string;
  attributes?: Record<string, string | string[]>;
  audience: string;
  recipient: string;
  destination?: string | null;
  inResponseTo?: string | null;
  /** Seconds from now (negative: in the past). */
  notBefore?: number;
  notOnOrAfter?: number;
  assertionId?: string;
  issuer?: string;
}

const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString();
const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

export class TestIdp {
  readonly keys: KeyPair;

  constructor(
    readonly entityId = `https://idp-${randomUUID().slice(0, 8)}.example/saml`,
    keys?: KeyPair,
  ) {
    this.keys = keys ?? selfSignedKeyPair(entityId);
  }

  metadata(sloUrl: string | null = `${this.entityId}/slo`): string {
    return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${this.entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(this.keys.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    ${sloUrl ? `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${sloUrl}"/>` : ""}
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${this.entityId}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  }

  assertionXml(spec: AssertionSpec): string {
    const id = spec.assertionId ?? `_a${randomUUID().replace(/-/g, "")}`;
    const irt = spec.inResponseTo ? ` InResponseTo="${spec.inResponseTo}"` : "";
    const attributes = Object.entries(spec.attributes ?? {})
      .map(
        ([name, values]) =>
          `<saml:Attribute Name="${xmlText(name)}">${(Array.isArray(values) ? values : [values]).map((value) => `<saml:AttributeValue>${xmlText(value)}</saml:AttributeValue>`).join("")}</saml:Attribute>`,
      )
      .join("");
    return `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(0)}"><saml:Issuer>${spec.issuer ?? this.entityId}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${xmlText(spec.nameId)}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${iso(spec.notOnOrAfter ?? 300)}" Recipient="${spec.recipient}"${irt}/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(spec.notBefore ?? -30)}" NotOnOrAfter="${iso(spec.notOnOrAfter ?? 300)}"><saml:AudienceRestriction><saml:Audience>${spec.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s${randomUUID().slice(0, 8)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement>${attributes}</saml:AttributeStatement></saml:Assertion>`;
  }

  /** Signs the element with this ID (enveloped, the Signature after the Issuer as SAML requires). */
  sign(xml: string, elementName: "Assertion" | "Response", keys: KeyPair = this.keys): string {
    const xpath = `//*[local-name(.)='${elementName}']`;
    return signXml(
      xml,
      xpath,
      { reference: `${xpath}/*[local-name(.)='Issuer']`, action: "after" },
      { privateKey: keys.privateKeyPem, publicCert: keys.certificatePem, signatureAlgorithm: "sha256", digestAlgorithm: "sha256" },
    );
  }

  response(inner: string, spec: Pick<AssertionSpec, "destination" | "inResponseTo">): string {
    const destination = spec.destination ? ` Destination="${spec.destination}"` : "";
    const irt = spec.inResponseTo ? ` InResponseTo="${spec.inResponseTo}"` : "";
    return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID().replace(/-/g, "")}" Version="2.0" IssueInstant="${iso(0)}"${destination}${irt}><saml:Issuer>${this.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${inner}</samlp:Response>`;
  }

  /** The usual answer: a Response around a signed assertion. */
  signedResponse(spec: AssertionSpec): string {
    return this.response(this.sign(this.assertionXml(spec), "Assertion"), { destination: spec.destination ?? spec.recipient, inResponseTo: spec.inResponseTo });
  }

  /** A signed assertion encrypted for the SP (AES-256-CBC under RSA-OAEP), as an EncryptedAssertion. */
  encryptedResponse(spec: AssertionSpec, spCertificatePem: string): string {
    const signed = this.sign(this.assertionXml(spec), "Assertion");
    // XML Encryption as IdPs do it: AES-256-CBC for the assertion, its key under the SP's RSA key (OAEP).
    const key = randomBytes(32);
    const iv = randomBytes(16);
    const cipher = createCipheriv("aes-256-cbc", key, iv);
    const body = Buffer.concat([iv, cipher.update(signed, "utf8"), cipher.final()]).toString("base64");
    const wrappedKey = publicEncrypt({ key: spCertificatePem, padding: constants.RSA_PKCS1_OAEP_PADDING }, key).toString("base64");
    const encrypted = `<xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"><xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes256-cbc"/><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><xenc:EncryptedKey><xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"/><xenc:CipherData><xenc:CipherValue>${wrappedKey}</xenc:CipherValue></xenc:CipherData></xenc:EncryptedKey></ds:KeyInfo><xenc:CipherData><xenc:CipherValue>${body}</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>`;
    return this.response(`<saml:EncryptedAssertion>${encrypted}</saml:EncryptedAssertion>`, { destination: spec.recipient, inResponseTo: spec.inResponseTo });
  }
}

export const base64 = (xml: string) => Buffer.from(xml, "utf8").toString("base64");
