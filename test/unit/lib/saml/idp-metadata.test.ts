/**
 * IdP metadata as an admin uploads it: the fields sign-in needs are read (every signing
 * certificate, for a rollover), and metadata that is unsafe or incomplete is refused with a
 * reason; the change schema keeps the OpenID shape accepted unchanged beside the SAML one.
 */
import { expect } from "chai";
import { validIdentityProviderChange } from "../../../../commands/identity-provider-change";
import { IdpMetadataInvalid, readIdpMetadata } from "../../../../lib/saml/idp-metadata";
import { refuseUnsafeXml, UnsafeXml } from "../../../../lib/saml/safe-xml";
import { Refusal } from "../../../../lib/refusal";
import { TestIdp } from "../../../support/saml-idp";

const idp = new TestIdp("https://idp.example/saml");

describe("SAML IdP metadata and the SAML provider change", () => {
  it("reads entity id, the Redirect SSO and SLO URLs and every signing certificate", () => {
    const second = new TestIdp("https://idp.example/saml");
    const cert = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
    const rollover = idp
      .metadata()
      .replace(
        "</md:KeyDescriptor>",
        `</md:KeyDescriptor><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${cert(second.keys.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>QUJD</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
      );
    expect(readIdpMetadata(rollover)).to.deep.equal({
      entity_id: "https://idp.example/saml",
      sso_url: "https://idp.example/saml/sso",
      slo_url: "https://idp.example/saml/slo",
      signing_certificates: [cert(idp.keys.certificatePem), cert(second.keys.certificatePem)],
    });
    expect(readIdpMetadata(idp.metadata(null)).slo_url).to.equal(null);
  });

  it("refuses a DOCTYPE, no IdP, no Redirect SSO, no signing certificate", () => {
    const refusals = [
      `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idp.metadata()}`,
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><md:SPSSODescriptor/></md:EntityDescriptor>`,
      idp
        .metadata()
        .replace(
          /Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https:\/\/idp.example\/saml\/sso"/,
          'Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example/saml/sso"',
        ),
      idp.metadata().replace('use="signing"', 'use="encryption"'),
      "not xml <",
    ];
    for (const xml of refusals) expect(() => readIdpMetadata(xml), xml.slice(0, 80)).to.throw(IdpMetadataInvalid);
    expect(() => refuseUnsafeXml('<!DOCTYPE lolz [<!ENTITY lol "lol">]><r>&lol;</r>'))
      .to.throw(UnsafeXml)
      .with.property("reason", "doctype");
  });

  it("keeps an OpenID change without `protocol` as it was, and validates the SAML variant", () => {
    const oidc = validIdentityProviderChange({ display_name: "Acme", issuer: "https://login.acme.example", client_id: "c" });
    expect(oidc).to.include({ protocol: "oidc", issuer: "https://login.acme.example", client_id: "c", enabled: true, jit_enabled: false });
    const saml = validIdentityProviderChange({ protocol: "saml", display_name: "Campus", metadata_url: "https://idp.example/metadata" });
    expect(saml).to.include({ protocol: "saml", allow_idp_initiated: false, metadata_url: "https://idp.example/metadata" });
    for (const bad of [
      { protocol: "saml", display_name: "x", issuer: "https://idp.example" },
      { protocol: "saml", display_name: "x", metadata_url: "ftp://idp.example/m" },
      { protocol: "saml", display_name: "x", metadata_url: "https://idp.example/m", metadata_xml: "<x/>" },
      { protocol: "ldap", display_name: "x" },
    ])
      expect(() => validIdentityProviderChange(bad as never), JSON.stringify(bad))
        .to.throw(Refusal)
        .with.property("code", "VALIDATION_ERROR");
  });
});
