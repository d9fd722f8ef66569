import { expect } from "chai";
import { ForbiddenDestination, refuseMetadataDestinations } from "../../lib/outbound-guard";

describe("refuseMetadataDestinations: provider URLs an admin typed never reach cloud metadata", () => {
  it("refuses link-local and unspecified addresses, IPv4-mapped ones too", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "https://[fe80::1]/jwks",
      "http://0.0.0.0:8080/",
      "http://[::ffff:169.254.169.254]/",
      "http://[fd00:ec2::254]/",
    ]) {
      const refused = await refuseMetadataDestinations(url).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, url).to.be.instanceOf(ForbiddenDestination);
    }
  });

  it("lets loopback, private networks and names that do not resolve through (the request itself then decides)", async () => {
    for (const url of ["http://127.0.0.1:9/", "http://10.0.0.5/realms/acme", "https://192.168.1.10/", "http://[::1]:9/", "https://unresolvable.invalid/"]) {
      await refuseMetadataDestinations(url);
    }
  });
});
