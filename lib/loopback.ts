/**
 * Whether a host name or address reaches only this machine (dev-login is safe only there).
 * Parsed, never matched by prefix: `127.attacker.example` and `127.0.0.1.nip.io` are names an
 * attacker controls (DNS rebinding), while `[::1]`, `::ffff:127.0.0.1` and `localhost.` are
 * loopback however they are written.
 */
import { BlockList, isIP } from "node:net";

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
// BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4 subnet.
LOOPBACK.addAddress("::1", "ipv6");

/** A host as written in a URL, Host header or HOST setting, without brackets, trailing dot or case. */
export function canonicalHost(host: string): string {
  let value = host.trim().toLowerCase();
  if (value.startsWith("[") && value.endsWith("]")) value = value.slice(1, -1);
  // A fully qualified name (`localhost.`) is the same name; an address never ends with a dot.
  return value.endsWith(".") && isIP(value) === 0 ? value.slice(0, -1) : value;
}

/** True for `localhost`, 127.0.0.0/8 and ::1 in any spelling; false for every other name, even one that starts with `127.`. */
export function isLoopbackHost(host: string): boolean {
  const value = canonicalHost(host);
  if (value === "localhost") return true;
  const family = isIP(value);
  if (family === 4) return LOOPBACK.check(value, "ipv4");
  if (family === 6) return LOOPBACK.check(value, "ipv6");
  return false;
}
