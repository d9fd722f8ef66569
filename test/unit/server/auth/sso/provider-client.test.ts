import { expect } from "chai";
import { AddressPolicy } from "../../../../../lib/outbound/address-policy";
import { OutboundClient, type Resolver } from "../../../../../lib/outbound/client";
import { describeProviderError, discoverProvider } from "../../../../../server/auth/sso/provider-client";

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
