import { X509Certificate } from "node:crypto";
import { expect } from "chai";
import { selfSignedKeyPair, serialNumber } from "../../../lib/self-signed-certificate";

describe("a service provider's self-signed certificate", () => {
  it("is one certificate OpenSSL reads, around the key pair's public half, for the name given", () => {
    const pair = selfSignedKeyPair("sp.example");
    const certificate = new X509Certificate(pair.certificatePem);
    expect(certificate.subject).to.equal("CN=sp.example");
    expect(certificate.verify(certificate.publicKey)).to.equal(true);
  });

  it("makes every serial a positive, minimal INTEGER, including from the bytes OpenSSL would refuse as padding", () => {
    // 00 10 …: a padded INTEGER, which OpenSSL refuses together with the whole certificate.
    for (const first of [
      [0x00, 0x10],
      [0x00, 0x90],
      [0x80, 0x00],
      [0xff, 0xff],
    ]) {
      const serial = serialNumber(Buffer.from([...first, ...Buffer.alloc(14, 0x01)]));
      expect(serial).to.have.length(16);
      expect(serial[0]! & 0x80, "positive").to.equal(0);
      expect(serial[0], "minimal: never a leading zero byte").to.not.equal(0);
    }
  });
});
