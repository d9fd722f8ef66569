/**
 * Starts the test OpenID Provider (test/harness/oidc-provider-server.ts) as its own process, like
 * the harness's redis-server, and gives tests its control routes: add an account, rotate the
 * signing key, sign a token with the provider's key, make it hang.
 */
import { fileURLToPath } from "node:url";
import type { ClientMetadata } from "oidc-provider";
import { findFreePort, spawnUntilReady, type ManagedChild } from "../../launcher/embedded/child-process";
import type { OidcTestConfig, TestAccount } from "./oidc-provider-server";

export type { TestAccount };

export interface TestIdentityProvider {
  issuer: string;
  apiAudience: string;
  addAccount(account: TestAccount): Promise<void>;
  /** A new signing key; `keepOld` publishes the previous one too (graceful rotation). Returns the new kid. */
  rotateKeys(keepOld?: boolean): Promise<string>;
  /** A JWT signed with the provider's current key (header defaults: RS256 and its kid). */
  sign(payload: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Every request (but control ones) waits `ms` before it is answered; 0 ends the outage. */
  hang(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TestIdentityProviderOptions {
  clients: ClientMetadata[];
  accounts?: TestAccount[];
  apiAudience?: string;
}

export async function startTestIdentityProvider(options: TestIdentityProviderOptions): Promise<TestIdentityProvider> {
  const port = await findFreePort();
  const settings: OidcTestConfig = {
    port,
    clients: options.clients,
    accounts: options.accounts ?? [],
    apiAudience: options.apiAudience ?? "urn:skillnet-chat:api",
  };
  const script = fileURLToPath(new URL("./oidc-provider-server.ts", import.meta.url));
  const { child, match } = await spawnUntilReady(process.execPath, ["--import", "tsx", script], {
    name: "oidc-provider",
    readyPattern: /^READY (\S+)/,
    env: { ...process.env, OIDC_TEST_CONFIG: JSON.stringify(settings) },
    timeoutMs: 30_000,
  });
  const issuer = match[1]!;
  const call = async (what: string, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${issuer}/__control/${what}`, { method: "POST", body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`oidc-provider control ${what}: ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  };
  return {
    issuer,
    apiAudience: settings.apiAudience,
    addAccount: async (account) => void (await call("account", account)),
    rotateKeys: async (keepOld = false) => (await call("rotate-keys", { keep_old: keepOld })).kid as string,
    sign: async (payload, header) => (await call("sign", { payload, header })).token as string,
    hang: async (ms) => void (await call("hang", { ms })),
    stop: () => stopChild(child),
  };
}

const stopChild = (child: ManagedChild) => child.stop(2_000);
