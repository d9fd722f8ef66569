import { expect } from "chai";
import { AddressPolicy, parseCidrList } from "../../../../lib/outbound/address-policy";

describe("AddressPolicy: where requests to admin-chosen URLs may connect", () => {
  it("reaches public unicast addresses only by default: loopback, private, shared, documentation and reserved ranges are refused", () => {
    const policy = new AddressPolicy("");
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:93.184.216.34"])
      expect(policy.verdict(address), address).to.equal("public");
    for (const address of [
      "127.0.0.1",
      "127.5.6.7",
      "::1",
      "::ffff:127.0.0.1",
      "10.1.2.3",
      "172.20.0.5",
      "192.168.1.10",
      "100.64.0.1",
      "198.18.0.1",
      "192.0.2.1",
      "203.0.113.9",
      "240.0.0.1",
      "fc00::1",
      "fd12:3456::1",
      "2001:db8::1",
      "not-an-address",
    ])
      expect(policy.verdict(address), address).to.equal("refused");
  });

  it("lets the operator allow private ranges (a LAN Keycloak), and loopback only when listed", () => {
    const policy = new AddressPolicy("10.20.0.0/16, 192.168.1.5, fd12::/16");
    expect(policy.verdict("10.20.3.4")).to.equal("allowed");
    expect(policy.verdict("192.168.1.5")).to.equal("allowed");
    expect(policy.verdict("::ffff:10.20.3.4")).to.equal("allowed");
    expect(policy.verdict("fd12:3456::1")).to.equal("allowed");
    expect(policy.verdict("10.21.0.1")).to.equal("refused");
    expect(policy.verdict("192.168.1.6")).to.equal("refused");
    expect(policy.verdict("127.0.0.1")).to.equal("refused");
  });

  it("never reaches link-local addresses (cloud metadata) nor unspecified or multicast ones, whatever is allowed", () => {
    const everything = new AddressPolicy("0.0.0.0/0,::/0");
    for (const address of ["169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254", "fe80::1", "0.0.0.0", "::", "224.0.0.1", "ff02::1"])
      expect(everything.verdict(address), address).to.equal("refused");
    expect(everything.verdict("10.0.0.1")).to.equal("allowed");
  });

  it("reads a CIDR list and refuses a malformed one", () => {
    expect(parseCidrList("")).to.deep.equal([]);
    expect(parseCidrList("10.0.0.0/8,::1")).to.deep.equal([
      { network: "10.0.0.0", prefix: 8 },
      { network: "::1", prefix: 128 },
    ]);
    for (const bad of ["10.0.0.0/33", "keycloak.lan", "10.0.0.0/x", "::1/129"]) expect(() => parseCidrList(bad), bad).to.throw(TypeError);
  });
});
