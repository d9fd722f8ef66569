/**
 * Which addresses a request to a URL an organisation's admin chose may connect to. Such URLs
 * (an identity provider's issuer, the `jwks_uri` its discovery names, a future connector's
 * endpoint) are a tenant's words, so by default they reach only **public unicast** addresses:
 * never the machine's own loopback (Redis, Postgres, metrics), the private networks around it, or
 * anything not routable on the internet. The operator may allow private ranges
 * (OUTBOUND_ALLOWED_CIDRS: a self-hosted Keycloak on the LAN); link-local addresses, where cloud
 * metadata services hand out the host's credentials, are refused whatever is allowed.
 */
import { BlockList, isIP } from "node:net";

/** Where a connection to an address may go: anywhere public, only because the operator allowed it, or never. */
export type AddressVerdict = "public" | "allowed" | "refused";

function blockList(ranges: Array<[string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIP(network) === 6 ? "ipv6" : "ipv4");
  return list;
}

/** Never, whatever the operator allows: link-local (cloud metadata), unspecified, multicast, broadcast. */
const NEVER = blockList([
  ["169.254.0.0", 16],
  ["0.0.0.0", 8],
  ["224.0.0.0", 4],
  ["255.255.255.255", 32],
  ["fe80::", 10],
  ["fd00:ec2::254", 128],
  ["::", 128],
  ["ff00::", 8],
]);

/** Not public: loopback, private, shared (CGNAT), benchmarking, documentation, reserved, unique-local, NAT64 (RFC 6890). */
const NOT_PUBLIC_V4 = blockList([
  ["127.0.0.0", 8],
  ["10.0.0.0", 8],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["100.64.0.0", 10],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["240.0.0.0", 4],
]);
/** IPv6 is public only inside 2000::/3, and not in its documentation, ORCHID or 6to4-of-private ranges. */
const GLOBAL_V6 = blockList([["2000::", 3]]);
const NOT_PUBLIC_V6 = blockList([
  ["2001:db8::", 32],
  ["2001:10::", 28],
  ["2001:20::", 28],
  ["2002::", 16],
]);

/** The IPv4 address an IPv4-mapped IPv6 one (::ffff:10.0.0.1) stands for, else the address itself. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Parses `10.0.0.0/8,fd12::/16,192.168.1.20` (a bare address is a /32 or /128); throws on a malformed entry. */
export function parseCidrList(text: string): Array<{ network: string; prefix: number }> {
  const entries: Array<{ network: string; prefix: number }> = [];
  for (const item of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [network = "", prefixText] = item.split("/");
    const family = isIP(network);
    if (!family) throw new TypeError(`"${item}" is not an IP address or CIDR range`);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) throw new TypeError(`"${item}" has a prefix length outside 0–${max}`);
    entries.push({ network, prefix });
  }
  return entries;
}

export class AddressPolicy {
  private readonly allowed = new BlockList();

  /** `allowedCidrs`: the operator's OUTBOUND_ALLOWED_CIDRS (empty: public addresses only). */
  constructor(allowedCidrs: string) {
    for (const { network, prefix } of parseCidrList(allowedCidrs)) this.allowed.addSubnet(network, prefix, isIP(network) === 6 ? "ipv6" : "ipv4");
  }

  verdict(rawAddress: string): AddressVerdict {
    const address = unmapped(rawAddress);
    const family = isIP(address) === 4 ? "ipv4" : isIP(address) === 6 ? "ipv6" : undefined;
    if (!family || NEVER.check(address, family)) return "refused";
    if (this.allowed.check(address, family)) return "allowed";
    const isPublic = family === "ipv4" ? !NOT_PUBLIC_V4.check(address, "ipv4") : GLOBAL_V6.check(address, "ipv6") && !NOT_PUBLIC_V6.check(address, "ipv6");
    return isPublic ? "public" : "refused";
  }
}
