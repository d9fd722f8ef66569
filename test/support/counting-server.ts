/**
 * A plain HTTP server on a loopback address that records every path it is asked for: the
 * "internal service" SSRF tests assert was never reached, or a fake provider they script.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface CountingServer {
  server: Server;
  port: number;
  /** Every request's path, in order. */
  hits: string[];
  close(): Promise<void>;
}

export function countingServer(host: string, handler: RequestListener = (_req, res) => res.end("{}"), port = 0): Promise<CountingServer> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    handler(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () =>
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        hits,
        close: () => {
          server.closeAllConnections();
          return new Promise((done) => server.close(() => done()));
        },
      }),
    );
  });
}

/** Answers JSON with the given status. */
export function json(body: unknown, status = 200): RequestListener {
  const bytes = Buffer.from(JSON.stringify(body));
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": String(bytes.length) });
    res.end(bytes);
  };
}

/** A discovery document for `issuer`, naming `jwksUri` as its keys. */
export function discoveryOf(issuer: string, jwksUri: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: jwksUri,
    response_types_supported: ["code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
  };
}
