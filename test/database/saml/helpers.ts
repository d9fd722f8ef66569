/**
 * A SAML provider stored through the real command (metadata uploaded as XML), and the SAML
 * handlers mounted on a bare Koa app over the database lane's PostgreSQL and Redis: the ACS, the
 * SP-initiated start and single logout, as the server mounts them, without booting the server.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inflateRawSync } from "node:zlib";
import { createRedis, redisTargetOf } from "../../../queues/connection";
import Koa from "koa";
import { pino } from "pino";
import { approveDomain } from "../../../commands/organisation-domains";
import { saveOrganisationIdentityProvider } from "../../../commands/organisation-identity-provider";
import type { IdentityProviderRow } from "../../../db/queries/identity";
import type { Config } from "../../../lib/config";
import { samlSpUrls } from "../../../lib/saml/sp-urls";
import { handleSamlLogout } from "../../../server/auth/saml/logout";
import { completeSamlSignIn, loadSamlProvider, startSamlSignIn } from "../../../server/auth/saml/sign-in";
import type { ServerDeps } from "../../../server/deps";
import type { DatabaseSuite } from "../../support/database";
import type { TestIdp } from "../../support/saml-idp";

export const PUBLIC_URL = "http://sp.saml.test";
const SECRETS_KEY = "saml-tests-secrets-key-0123456789abcdef";

export function samlConfig(lane: DatabaseSuite): Config {
  const config = lane.config;
  return { ...config, auth: { ...config.auth, SECRETS_KEY }, server: { ...config.server, PUBLIC_URL } };
}

export async function samlProviderFor(
  lane: DatabaseSuite,
  orgId: string,
  idp: TestIdp,
  options: { domain: string; allowIdpInitiated?: boolean; jit?: boolean },
): Promise<IdentityProviderRow & { sp: ReturnType<typeof samlSpUrls> }> {
  const config = samlConfig(lane);
  const deps = { db: lane.db, log: lane.deps.log, config };
  await approveDomain(deps, { via: "cli" }, orgId, options.domain);
  const row = await saveOrganisationIdentityProvider(deps, { via: "cli", userId: null }, orgId, {
    protocol: "saml",
    display_name: "Test SAML",
    metadata_xml: idp.metadata(),
    allow_idp_initiated: options.allowIdpInitiated ?? false,
    allowed_domains: [options.domain],
    jit_enabled: options.jit ?? true,
    claim_mapping: { admin_groups: ["admins"] },
  });
  return { ...row, sp: samlSpUrls(PUBLIC_URL, row.id) };
}

export interface SamlApp {
  url: string;
  /** The `detail` of each refusal the handler logged, latest last (what the page never shows). */
  refusals: string[];
  close(): Promise<void>;
}

/** One "server process": its own Redis connection, the same database. */
export async function startSamlApp(lane: DatabaseSuite): Promise<SamlApp> {
  const config = samlConfig(lane);
  const redis = createRedis(redisTargetOf(config), "producer", pino({ level: "silent" }));
  const refusals: string[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void refusals.push(String(JSON.parse(line).detail ?? "")) });
  const deps = { db: lane.db, redis, config, log } as unknown as ServerDeps;
  const app = new Koa();
  app.use(async (ctx) => {
    const match = /^\/api\/v1\/auth\/saml\/([0-9a-f-]{36})\/(acs|start|slo)$/.exec(ctx.path);
    if (!match) return;
    if (match[2] === "acs") return completeSamlSignIn(ctx, deps, match[1]!);
    if (match[2] === "slo") return handleSamlLogout(ctx, deps, match[1]!);
    await startSamlSignIn(ctx, deps, await loadSamlProvider(ctx, deps, match[1]!), "/");
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refusals,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await redis.quit();
    },
  };
}

export interface AcsAnswer {
  status: number;
  code: string | null;
  cookies: string[];
  location: string | null;
}

export async function postToAcs(app: SamlApp, providerId: string, samlResponse: string, relayState?: string): Promise<AcsAnswer> {
  const form = new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState ? { RelayState: relayState } : {}) });
  const response = await fetch(`${app.url}/api/v1/auth/saml/${providerId}/acs`, { method: "POST", body: form, redirect: "manual" });
  const html = await response.text();
  return {
    status: response.status,
    code: /<code id="code">([A-Z_]+)<\/code>/.exec(html)?.[1] ?? null,
    cookies: response.headers.getSetCookie(),
    location: response.headers.get("location"),
  };
}

/** Starts an SP-initiated sign-in and returns the AuthnRequest's ID (what the IdP answers InResponseTo). */
export async function startSignIn(app: SamlApp, providerId: string): Promise<{ requestId: string; location: URL }> {
  const response = await fetch(`${app.url}/api/v1/auth/saml/${providerId}/start`, { redirect: "manual" });
  const location = new URL(response.headers.get("location")!);
  const request = inflateRawSync(Buffer.from(location.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
  return { requestId: /\bID="([^"]+)"/.exec(request)![1]!, location };
}
