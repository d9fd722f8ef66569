/**
 * Requests to addresses an organisation's admin chose: which private networks they may reach, and which DNS answers domain checks.
 */
import { z } from "zod";
import { defineSection, optionalString } from "../settings-section";
import { parseCidrList } from "./address-policy";

export const outboundSettings = defineSection({
  environment: {
    OUTBOUND_ALLOWED_CIDRS: z
      .string()
      .trim()
      .default("")
      .refine((value) => {
        try {
          parseCidrList(value);
          return true;
        } catch {
          return false;
        }
      }, "use comma-separated IP addresses or CIDR ranges, e.g. 10.20.0.0/16,192.168.1.5")
      .describe(
        "Private networks that requests to URLs an organisation's admin chose (an identity provider's issuer, its JWKS) may reach, as " +
          "comma-separated CIDR ranges (e.g. `10.20.0.0/16` for a Keycloak on the LAN, `127.0.0.1/32` for one on this host). Empty: public " +
          "addresses only, over HTTPS; plain `http://` is accepted only to these ranges. Link-local addresses (cloud metadata) are refused " +
          "whatever it says. `npm start` on its embedded parts (dev-login on, loopback only) defaults it to loopback.",
      ),
    DNS_RESOLVERS: optionalString
      .transform((value) =>
        (value ?? "")
          .split(",")
          .map((server) => server.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z
            .string()
            .regex(
              /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$|^[0-9a-fA-F:]+$/,
              "an IP address, optionally with :port (IPv6 with a port in brackets)",
            ),
        ),
      )
      // Unset stays unset (the system's resolvers), not an empty list.
      .transform((servers) => (servers.length > 0 ? servers : undefined))
      .describe(
        "DNS resolvers used to verify an organisation's email domain (its `_skillnet-challenge` TXT record), comma-separated IP addresses " +
          "with an optional port (`10.0.0.2,10.0.0.3:53`). Unset: the system's resolvers.",
      ),
  },
  why: {
    OUTBOUND_ALLOWED_CIDRS: "An identity provider runs on your private network (a Keycloak on the LAN): list its range so admins may point at it.",
    DNS_RESOLVERS: "Domain checks must ask your own resolvers (split-horizon DNS, a locked-down egress) instead of the system's.",
  },
});
