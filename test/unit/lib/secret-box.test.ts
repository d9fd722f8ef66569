import { expect } from "chai";
import { SecretBox } from "../../../lib/secret-box";

describe("SecretBox: stored secrets sealed with SECRETS_KEY", () => {
  const box = new SecretBox("a-key-of-at-least-thirty-two-characters");

  it("opens what it sealed, and seals the same secret differently each time", () => {
    const first = box.seal("client-secret-ü");
    expect(box.open(first)).to.equal("client-secret-ü");
    expect(box.seal("client-secret-ü")).to.not.equal(first);
    expect(first).to.not.include("client-secret");
  });

  it("gives null, not garbage, under another key or when the sealed text was altered", () => {
    const sealed = box.seal("s3cret");
    expect(new SecretBox("another-key-of-at-least-thirty-two-chars").open(sealed)).to.equal(null);
    const parts = sealed.split(".");
    parts[3] = Buffer.from("tampered").toString("base64url");
    expect(box.open(parts.join("."))).to.equal(null);
    expect(box.open("not sealed at all")).to.equal(null);
  });
});
