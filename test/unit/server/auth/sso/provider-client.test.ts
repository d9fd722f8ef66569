import { expect } from "chai";
import { AddressPolicy } from "../../../../../lib/outbound/address-policy";
import { OutboundClient, type Resolver } from "../../../../../lib/outbound/client";
import { clientAuthMethod, describeProviderError, discoverProvider } from "../../../../../server/auth/sso/provider-client";

describe("discovering an identity provider: every request goes through the outbound client", () => {
  const publicResolver: Resolver = async () => [{ address: "93.184.216.34", family: 4 }];
  const attempt = (issuer: string, outbound: OutboundClient) =>
    discoverProvider({ issuer, clientId: "app", clientSecret: null }, 300, outbound).then(() => "discovered", describeProviderError);

  it("refuses plain HTTP to a public address, and loopback without the allowance, before a request is made", async () => {
    expect(await attempt("http://idp.example.com/realms/beta", new OutboundClient(new AddressPolicy(""), publicResolver))).to.match(/^scheme: /);
    for (const issuer of ["http://127.0.0.1:9", "http://localhost:9", "https://127.0.0.1:9"])
      expect(await attempt(issuer, new OutboundClient(new AddressPolicy(""))), issuer).to.match(/^address: /);
  });

  it("tries plain HTTP to an address the operator allowed (tests, a provider on the LAN), failing here only because nobody listens", async () => {
    const allowed = new OutboundClient(new AddressPolicy("127.0.0.0/8,::1"));
    for (const issuer of ["http://127.0.0.1:9", "http://localhost:9/realms/beta"]) expect(await attempt(issuer, allowed), issuer).to.match(/^network: /);
  });
});

describe("how the client authenticates at a provider's token endpoint (from its metadata)", () => {
  it("uses client_secret_basic when the provider lists it or lists nothing (the specification's default)", () => {
    expect(clientAuthMethod({}, "s3cret")).to.equal("client_secret_basic");
    expect(clientAuthMethod({ token_endpoint_auth_methods_supported: ["private_key_jwt", "client_secret_basic", "client_secret_post"] }, "s3cret")).to.equal(
      "client_secret_basic",
    );
  });

  it("uses client_secret_post for a provider that accepts only that, and nothing for a public client", () => {
    expect(clientAuthMethod({ token_endpoint_auth_methods_supported: ["client_secret_post"] }, "s3cret")).to.equal("client_secret_post");
    expect(clientAuthMethod({ token_endpoint_auth_methods_supported: ["client_secret_post"] }, null)).to.equal("none");
  });
});
