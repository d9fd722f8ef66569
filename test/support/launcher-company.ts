/**
 * What an operator does beside `npm start` to give a company its sign-in, as the launcher journeys
 * do it: the org CLI run against the launcher's own data, an OpenID client registered for the
 * launcher's address, and our SAML service provider made known to SimpleSAMLphp from the metadata
 * we publish.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { ClientMetadata } from "oidc-provider";
import { samlSpUrls } from "../../lib/saml/sp-urls";
import type { TestSamlIdp } from "../harness/simplesamlphp";
import type { LauncherSetup } from "./launcher";
import { CALLBACK } from "./sso";

/** `npm run org -- …` against the launcher's DATA_DIR and settings; resolves with its output. */
export function orgCli(setup: LauncherSetup): (...args: string[]) => Promise<{ stdout: string; stderr: string }> {
  return (...args) => promisify(execFile)(process.execPath, ["--import", "tsx", "ops/cli/org.ts", ...args], { env: { ...setup.env, DATA_DIR: setup.dataDir } });
}

/** An OpenID client of the test provider that signs in and out at the launcher's address. */
export function launcherClient(setup: LauncherSetup, clientId: string, clientSecret: string): ClientMetadata {
  return {
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [`${setup.baseUrl}${CALLBACK}`],
    post_logout_redirect_uris: [`${setup.baseUrl}/`],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
}

/** Makes SimpleSAMLphp trust the SAML provider `providerId` as its metadata (our published XML) describes it. */
export async function trustServiceProvider(idp: TestSamlIdp, baseUrl: string, providerId: string): Promise<void> {
  const sp = samlSpUrls(baseUrl, providerId);
  const spXml = await (await fetch(sp.metadata)).text();
  idp.addServiceProvider({ entityId: sp.entityId, acsUrl: sp.acs, sloUrl: sp.slo, certificatePem: /X509Certificate>([^<]+)</.exec(spXml)![1]! });
}
