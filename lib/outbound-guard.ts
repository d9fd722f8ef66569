/**
 * Requests the server makes to a URL an organisation's admin typed (an identity provider's
 * issuer, and the endpoints its discovery document names) must not reach the machine's own
 * metadata services: cloud instance metadata lives on link-local addresses (169.254.169.254,
 * fd00:ec2::254 aside, fe80::/10) and would hand a tenant admin the host's credentials.
 * Private networks stay allowed — a company's Keycloak or ADFS often lives on one — and so
 * does loopback (tests, a provider on the same host).
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

const FORBIDDEN = new BlockList();
FORBIDDEN.addSubnet("169.254.0.0", 16, "ipv4");
FORBIDDEN.addSubnet("0.0.0.0", 8, "ipv4");
FORBIDDEN.addSubnet("fe80::", 10, "ipv6");
FORBIDDEN.addAddress("::", "ipv6");
FORBIDDEN.addAddress("fd00:ec2::254", "ipv6");

export class ForbiddenDestination extends Error {
  constructor(host: string) {
    super(`${host} is a link-local or unspecified address (where cloud metadata services live), which the server does not call`);
    this.name = "ForbiddenDestination";
  }
}

function forbidden(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, "ipv4");
  if (family !== 6) return false;
  // An IPv4-mapped address (::ffff:169.254.169.254) is the IPv4 one.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? FORBIDDEN.check(mapped[1]!, "ipv4") : FORBIDDEN.check(address, "ipv6");
}

/** Throws ForbiddenDestination when the URL's host is, or resolves to, a forbidden address. */
export async function refuseMetadataDestinations(url: string | URL): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((entry) => entry.address);
  if (addresses.some(forbidden)) throw new ForbiddenDestination(host);
}
