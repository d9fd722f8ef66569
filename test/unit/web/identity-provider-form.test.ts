/**
 * The console's provider form speaks the API's language: what it posts for a SAML or an OpenID
 * provider is accepted by the change schema the API validates with (a field the schema does not
 * know would be `400 VALIDATION_ERROR`), and a saved SAML provider's view fills the form and names
 * the SP values the server gave.
 */
import { expect } from "chai";
import { identityProviderChangeSchema } from "../../../commands/identity-provider-change";
import { bodyOf, EMPTY_FORM, formOf, type ProviderView, serviceProviderValues } from "../../../web/src/admin/identity-provider-form";

const METADATA_XML = '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example/saml"/>';

describe("web/admin/identity-provider-form: the body the console posts", () => {
  it("posts a SAML provider's uploaded metadata, else its URL, as the SAML change schema names them", () => {
    const form = { ...EMPTY_FORM, protocol: "saml" as const, display_name: "Campus", allowed_domains: "campus.example", allow_idp_initiated: true };
    const uploaded = identityProviderChangeSchema.parse(bodyOf({ ...form, idp_metadata_xml: METADATA_XML, idp_metadata_url: "https://idp.example/md" }));
    expect(uploaded).to.include({ protocol: "saml", metadata_xml: METADATA_XML, allow_idp_initiated: true });
    expect(uploaded).to.not.have.property("metadata_url");
    const byUrl = identityProviderChangeSchema.parse(bodyOf({ ...form, idp_metadata_url: " https://idp.example/md " }));
    expect(byUrl).to.include({ protocol: "saml", metadata_url: "https://idp.example/md" });
    const kept = identityProviderChangeSchema.parse(bodyOf(form));
    expect(kept, "neither: the stored metadata is kept").to.not.have.any.keys("metadata_url", "metadata_xml");
  });

  it("posts an OpenID provider the OpenID variant accepts", () => {
    const body = bodyOf({
      ...EMPTY_FORM,
      display_name: "Entra",
      issuer: "https://login.example/v2.0",
      client_id: "app",
      client_secret: "s",
      trust_email: true,
    });
    expect(identityProviderChangeSchema.parse(body)).to.include({ protocol: "oidc", issuer: "https://login.example/v2.0", client_secret: "s" });
  });

  it("fills the form from a saved SAML provider and shows the SP values the server named", () => {
    const view: ProviderView = {
      id: "0b8f6c1e-3a52-4c7e-9a0d-5f2f3f0a9b11",
      protocol: "saml",
      display_name: "Campus",
      allowed_domains: ["campus.example"],
      allowed_domain_status: { "campus.example": "verified" },
      claim_mapping: {},
      jit_enabled: true,
      enabled: true,
      saml: {
        idp_entity_id: "https://idp.example/saml",
        metadata_url: "https://idp.example/md",
        allow_idp_initiated: true,
        sp_entity_id: "https://learn.example/api/v1/auth/saml/0b8f6c1e-3a52-4c7e-9a0d-5f2f3f0a9b11/metadata",
        sp_metadata_url: "https://learn.example/api/v1/auth/saml/0b8f6c1e-3a52-4c7e-9a0d-5f2f3f0a9b11/metadata",
        acs_url: "https://learn.example/api/v1/auth/saml/0b8f6c1e-3a52-4c7e-9a0d-5f2f3f0a9b11/acs",
      },
    };
    expect(formOf(view)).to.include({ protocol: "saml", idp_metadata_url: "https://idp.example/md", allow_idp_initiated: true });
    expect(serviceProviderValues(view)).to.deep.equal({
      entityId: view.saml!.sp_entity_id,
      acsUrl: view.saml!.acs_url,
      metadataUrl: view.saml!.sp_metadata_url,
    });
    expect(serviceProviderValues({ ...view, saml: null })).to.equal(null);
  });
});
