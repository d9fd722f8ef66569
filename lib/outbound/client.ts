/**
 * The one HTTP client for requests to places an organisation's admin chooses (identity
 * providers' discovery, JWKS and token endpoints; any future connector). What it promises:
 *
 * - **Resolve once, connect to what was checked.** The host name is resolved by the socket's own
 *   `lookup`, which checks every address the resolver returns against the AddressPolicy and hands
 *   the socket only checked ones; nothing resolves the name a second time, so a DNS answer that
 *   changes between check and connect (rebinding) cannot slip through. A failed lookup fails.
 * - **Public unicast only**, unless the operator allowed the range (OUTBOUND_ALLOWED_CIDRS);
 *   link-local never. Plain `http://` only to allowed addresses: public endpoints need TLS.
 * - **No redirects followed** (a 3xx is handed back as it is, and callers treat it as a failure).
 * - **Bounded**: one deadline for connect, headers and body; the body is counted while it streams
 *   and the request is cut at `maxBytes` (a `Content-Length` above it is refused before reading).
 *
 * Failures are OutboundFailure with a `reason` for the log; callers show people one generic
 * message, so an answer never tells an open port from a closed one.
 */
import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { AddressPolicy } from "./address-policy";

/** 1 MiB: a discovery document or a JWKS is a few KiB; anything near this is not one. */
export const OUTBOUND_MAX_BYTES = 1024 * 1024;

export type OutboundFailureReason = "scheme" | "address" | "lookup" | "timeout" | "too_large" | "network";

export class OutboundFailure extends Error {
  constructor(
    readonly reason: OutboundFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OutboundFailure";
  }
}

/** Whether an error, or any error it was caused by, is an OutboundFailure (libraries wrap what our fetch throws). */
export function outboundFailureIn(error: unknown): OutboundFailure | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof OutboundFailure) return cause;
  return undefined;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name, as the system resolver answers (tests pass a resolver they script). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class OutboundClient {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly resolver: Resolver = systemResolver,
  ) {}

  /** Throws OutboundFailure("address") unless every address may be reached over this scheme. */
  private check(host: string, addresses: ResolvedAddress[], tls: boolean): void {
    if (addresses.length === 0) throw new OutboundFailure("lookup", `${host} has no address`);
    for (const { address } of addresses) {
      const verdict = this.policy.verdict(address);
      if (verdict === "refused")
        throw new OutboundFailure("address", `${host} resolves to ${address}, which is not a public address nor in OUTBOUND_ALLOWED_CIDRS`);
      if (!tls && verdict !== "allowed")
        throw new OutboundFailure("scheme", `http://${host} is at ${address}: plain HTTP only reaches OUTBOUND_ALLOWED_CIDRS; use https://`);
    }
  }

  /** The socket's lookup: resolves once, checks every answer, and connects only to checked addresses. */
  private checkedLookup(tls: boolean): LookupFunction {
    return (hostname, options, callback) => {
      this.resolver(hostname).then(
        (addresses) => {
          try {
            this.check(hostname, addresses, tls);
          } catch (error) {
            return callback(error as NodeJS.ErrnoException, "", 0);
          }
          const family = options.family === 4 || options.family === 6 ? options.family : 0;
          const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
          if (usable.length === 0) return callback(new OutboundFailure("lookup", `${hostname} has no IPv${family} address`) as NodeJS.ErrnoException, "", 0);
          if (options.all) return (callback as unknown as (error: null, all: ResolvedAddress[]) => void)(null, usable);
          return callback(null, usable[0]!.address, usable[0]!.family);
        },
        (error: unknown) => callback(new OutboundFailure("lookup", `${hostname} could not be resolved`, { cause: error }) as NodeJS.ErrnoException, "", 0),
      );
    };
  }

  async request(target: string | URL, options: OutboundRequest): Promise<OutboundResponse> {
    const url = new URL(target);
    const tls = url.protocol === "https:";
    if (!tls && url.protocol !== "http:") throw new OutboundFailure("scheme", `${url.protocol} is not http(s)`);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // The socket skips `lookup` for an address literal, so a literal is checked here.
    if (isIP(host)) this.check(host, [{ address: host, family: isIP(host) }], tls);
    const maxBytes = options.maxBytes ?? OUTBOUND_MAX_BYTES;
    const body = typeof options.body === "string" ? Buffer.from(options.body) : options.body;
    return new Promise<OutboundResponse>((resolve, reject) => {
      const request = (tls ? https : http).request({
        protocol: url.protocol,
        host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? "GET",
        headers: { "accept-encoding": "identity", ...options.headers, ...(body ? { "content-length": String(body.length) } : {}) },
        lookup: this.checkedLookup(tls),
        agent: false,
      });
      let settled = false;
      const deadline = setTimeout(() => fail(new OutboundFailure("timeout", `${url.origin} did not answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      const onAbort = (): void => fail(new OutboundFailure("timeout", `${url.origin}: the request was cancelled`));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      /** Settles once, whichever of error, cut, deadline or end comes first, and frees the timer and the socket. */
      const finish = (outcome: { error: OutboundFailure } | { answer: OutboundResponse }): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        options.signal?.removeEventListener("abort", onAbort);
        if ("error" in outcome) {
          request.destroy();
          reject(outcome.error);
        } else resolve(outcome.answer);
      };
      function fail(error: OutboundFailure): void {
        finish({ error });
      }
      const failed = (error: Error): void =>
        fail(
          error instanceof OutboundFailure
            ? error
            : new OutboundFailure(outboundFailureIn(error)?.reason ?? "network", `${url.origin}: ${error.message}`, { cause: error }),
        );
      request.on("error", failed);
      request.on("response", (response) => {
        const declared = Number(response.headers["content-length"] ?? 0);
        if (declared > maxBytes) return fail(new OutboundFailure("too_large", `${url.origin} announced ${declared} bytes (at most ${maxBytes})`));
        const chunks: Buffer[] = [];
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxBytes) return fail(new OutboundFailure("too_large", `${url.origin} sent more than ${maxBytes} bytes`));
          chunks.push(chunk);
        });
        // A connection cut mid-body ends in "aborted"/"error" on the response, not always on the request.
        response.on("error", failed);
        response.on("aborted", () => fail(new OutboundFailure("network", `${url.origin} closed the connection mid-answer`)));
        response.on("end", () => finish({ answer: { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) } }));
      });
      if (options.signal?.aborted) onAbort();
      request.end(body);
    });
  }

  /** The same client behind the Fetch API's shape, for libraries that take a fetch (openid-client's customFetch). */
  fetcher(limits: { timeoutMs: number; maxBytes?: number }): (url: string, init: FetchInit) => Promise<Response> {
    return async (url, init) => {
      const answer = await this.request(url, {
        method: init.method,
        headers: init.headers,
        body: fetchBody(init.body),
        timeoutMs: limits.timeoutMs,
        maxBytes: limits.maxBytes,
        signal: init.signal,
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) for (const one of [value ?? []].flat()) headers.append(name, one);
      // The Fetch API's Response takes 200–599 only (and no body for a 205): anything else is no answer of an HTTP server.
      if (answer.status < 200 || answer.status > 599) throw new OutboundFailure("network", `${url} answered status ${answer.status}`);
      const empty = answer.status === 204 || answer.status === 205 || answer.status === 304 || init.method === "HEAD";
      return new Response(empty ? null : answer.body, { status: answer.status, headers });
    };
  }
}

/** What openid-client passes to its fetch (a subset of RequestInit). */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: ArrayBuffer | null | ReadableStream | string | Uint8Array | URLSearchParams;
  signal?: AbortSignal;
}

function fetchBody(body: FetchInit["body"]): string | Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new OutboundFailure("network", "a streamed request body is not supported");
}
