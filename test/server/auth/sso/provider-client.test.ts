import { expect } from "chai";
import { describeProviderError, discoverProvider } from "../../../../server/auth/sso/provider-client";

describe("discovering an identity provider: which plain-HTTP issuers are allowed", () => {
  const attempt = (issuer: string) => discoverProvider({ issuer, clientId: "app", clientSecret: null }, 300).then(() => "discovered", describeProviderError);

  it("refuses plain HTTP to any other host before a request is made", async () => {
    for (const issuer of ["http://idp.example.com/realms/beta", "http://127.attacker.example", "http://localhost.example.com"]) {
      expect(await attempt(issuer), issuer).to.equal("the issuer must be an https:// URL");
    }
  });

  it("tries plain HTTP on loopback and *.localhost names (tests, the compose sso profile), failing here only because nobody listens", async () => {
    for (const issuer of ["http://127.0.0.1:9", "http://localhost:9", "http://keycloak.localhost:9/realms/beta"]) {
      expect(await attempt(issuer), issuer).to.not.equal("the issuer must be an https:// URL");
    }
  });
});
