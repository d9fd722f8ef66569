/**
 * The HTTP/Socket.IO server: where it listens, who may reach it, what it accepts and the operator's doors.
 */
import { z } from "zod";
import { defineSection, optionalString, booleanFlag, port } from "../lib/settings-section";

/** `false`/`0` off, `true`/`1` one proxy, `2`…`10` that many: how many proxies of ours append to `X-Forwarded-For`. */
const trustProxy = z
  .string()
  .trim()
  .regex(/^(true|false|yes|no|\d{1,2})$/, "use true, false, or how many proxies stand in front of the server (1–10)")
  .transform((value) => (value === "true" || value === "yes" ? 1 : value === "false" || value === "no" ? 0 : Number(value)))
  .pipe(z.number().int().min(0).max(10));

export const serverSettings = defineSection({
  environment: {
    HOST: z
      .string()
      .default("0.0.0.0")
      .describe("Bind address of the HTTP/Socket.IO server. While dev-login is on, `npm start` binds `127.0.0.1` unless you set it (and then warns)."),
    PORT: port.default(3000).describe("Port of the HTTP API, Socket.IO (`/socket.io`) and Bull Board."),
    PUBLIC_URL: optionalString
      .pipe(z.url({ protocol: /^https?$/ }).optional())
      .describe(
        "The URL people open (e.g. `https://learn.example.com`). While dev-login is on, only requests whose `Host` is this URL's host or a " +
          "loopback name are served (`421 HOST_NOT_ALLOWED` otherwise, against DNS rebinding).",
      ),
    TRUST_PROXY: trustProxy
      .default(0)
      .describe(
        "Behind a reverse proxy: trust `X-Forwarded-For` (client IP for rate limits) and `X-Forwarded-Proto` (HTTPS, so the Bull Board " +
          "cookie is `Secure`). `true` (or `1`) for one proxy of yours in front of the server; a number for that many: the client IP is " +
          "the entry this many places from the right of `X-Forwarded-For` (each proxy appends the address it saw), so entries a client " +
          "wrote itself are never read. Leave off when clients reach the server directly.",
      ),
    UPLOAD_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(5 * 1024 * 1024)
      .describe("Largest document upload accepted (5 MB; `413 FILE_TOO_LARGE` above it)."),
    OPS_ORG: optionalString.describe(
      "Slug of the platform operator's organisation. Bull Board shows every tenant's jobs, so only admins of this organisation may open it; " +
        "unset, nobody can (`npm start` with the embedded database sets `acme`).",
    ),
    METRICS_TOKEN: optionalString.describe(
      "When set, `GET /metrics` requires `Authorization: Bearer <METRICS_TOKEN>`, which also unlocks the reasons in `/readyz`. " +
        "Unset, metrics are served only while dev-login is on (`403` otherwise).",
    ),
    BULL_BOARD_READ_ONLY: booleanFlag
      .default(false)
      .describe(
        "Mount Bull Board read-only: operators still see every queue and job, but retry, clean, promote, pause, add and empty are refused " +
          "(`405`). Off by default: the board then controls every tenant's jobs.",
      ),
  },
  why: {
    HOST: "Bind to one interface (a private network, or loopback behind a local proxy) instead of every interface.",
    PORT: "When 3000 is taken, or your platform assigns the port (a PaaS sets one).",
    PUBLIC_URL: "Single sign-on redirects and links people follow must use the address they open; also the only host dev-login serves.",
    TRUST_PROXY: "Behind a reverse proxy or load balancer, so rate limits see the client's address and cookies know the request was HTTPS.",
    UPLOAD_MAX_BYTES: "Your documents are larger than 5 MB, or your proxy's body limit is smaller and should match.",
    OPS_ORG: "Names the organisation whose admins are the platform's operators (Bull Board, the ops API); unset, nobody is.",
    METRICS_TOKEN: "Your Prometheus scrapes `/metrics` in production: it needs this bearer token (unset, metrics are closed outside dev-login).",
    BULL_BOARD_READ_ONLY: "Operators should see every job but not retry, clean or delete them (a support team, an audited environment).",
  },
  tunables: {
    // Chosen, not measured: an HSTS max-age of 180 days, a board sign-in code that lives a minute, and an
    // import body of 32 MiB (thousands of lessons and tens of thousands of enrolments in one request).
    HSTS_MAX_AGE_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .default(15_552_000)
      .describe(
        "`Strict-Transport-Security` max-age sent on responses to requests that came over HTTPS (behind a proxy, only with `TRUST_PROXY`, " +
          "from `X-Forwarded-Proto`). 0 sends no HSTS header.",
      ),
    BOARD_CODE_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(600)
      .default(60)
      .describe("Lifetime of the single-use code that signs a browser in to Bull Board."),
    CATALOG_IMPORT_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024)
      .default(32 * 1024 * 1024)
      .describe(
        "The largest bulk catalog import (`POST /api/v1/integrations/catalog/imports`), NDJSON or JSON: 32 MiB holds a catalog of " +
          "thousands of lessons and tens of thousands of enrolments. A larger body is refused (`413 IMPORT_TOO_LARGE`) and nothing is stored; " +
          "split it into several imports.",
      ),
  },
  derive: (values) => ({
    /** Whether Koa trusts proxy headers, and how many of our proxies append to `X-Forwarded-For` (at least 1). */
    trustProxy: values.TRUST_PROXY > 0,
    trustProxyHops: Math.max(1, values.TRUST_PROXY),
  }),
});
