/**
 * A real SAML 2.0 identity provider for tests: Debian's SimpleSAMLphp (1.19) under PHP's built-in
 * web server, with a config directory of the test's own (docs: /work/shared/design/VERIFIED.md).
 * Accounts sign in on its username/password form (`exampleauth:UserPass`); each service provider
 * a test registers (entity id, ACS, SLO, certificate) is written to its `saml20-sp-remote`
 * metadata, which SimpleSAMLphp reads on every request, so one may be added after it started.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { findFreePort, spawnUntilReady } from "../../launcher/embedded/child-process";
import { selfSignedKeyPair } from "../../lib/self-signed-certificate";

export const SIMPLESAMLPHP_WWW = "/usr/share/simplesamlphp/www";

export interface SamlTestAccount {
  username: string;
  password: string;
  email: string;
  name?: string;
  groups?: string[];
}

export interface SamlTestSp {
  entityId: string;
  acsUrl: string;
  sloUrl: string;
  certificatePem: string;
}

export interface TestSamlIdp {
  baseUrl: string;
  metadataUrl: string;
  addServiceProvider(sp: SamlTestSp): void;
  stop(): Promise<void>;
}

const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

/** Requests under /simplesaml/ map to SimpleSAMLphp's www files, the part after `….php` as PATH_INFO. */
const ROUTER = `<?php
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if (strpos($path, '/simplesaml/') !== 0) { http_response_code(404); return true; }
$www = '${SIMPLESAMLPHP_WWW}';
$rel = substr($path, strlen('/simplesaml'));
if (preg_match('#^(.*?\\.php)(/.*)?$#', $rel, $m)) {
  $file = $www . $m[1];
  if (!is_file($file)) { http_response_code(404); return true; }
  $_SERVER['SCRIPT_NAME'] = '/simplesaml' . $m[1];
  $_SERVER['SCRIPT_FILENAME'] = $file;
  $_SERVER['PHP_SELF'] = '/simplesaml' . $rel;
  if (isset($m[2])) { $_SERVER['PATH_INFO'] = $m[2]; } else { unset($_SERVER['PATH_INFO']); }
  chdir(dirname($file));
  require $file;
  return true;
}
$file = realpath($www . $rel);
if ($file === false || strpos($file, $www) !== 0 || !is_file($file)) { http_response_code(404); return true; }
$types = ['css' => 'text/css', 'js' => 'application/javascript', 'png' => 'image/png', 'svg' => 'image/svg+xml', 'ico' => 'image/x-icon'];
header('Content-Type: ' . ($types[pathinfo($file, PATHINFO_EXTENSION)] ?? 'application/octet-stream'));
readfile($file);
return true;
`;

const fromJson = (file: string, variable: string) => `<?php\n$${variable} = json_decode(file_get_contents(__DIR__ . '/${file}'), true);\n`;

export async function startSimpleSamlPhp(accounts: SamlTestAccount[]): Promise<TestSamlIdp> {
  const dir = mkdtempSync(join(tmpdir(), "simplesamlphp-"));
  for (const sub of ["config", "metadata", "cert", "tmp", "log", "data"]) mkdirSync(join(dir, sub));
  const port = await findFreePort();
  const baseUrl = `http://127.0.0.1:${port}/simplesaml/`;
  const keys = selfSignedKeyPair(`simplesamlphp test IdP ${port}`);
  writeFileSync(join(dir, "cert", "idp.pem"), keys.privateKeyPem);
  writeFileSync(join(dir, "cert", "idp.crt"), keys.certificatePem);
  writeFileSync(join(dir, "router.php"), ROUTER);
  const config = {
    baseurlpath: baseUrl,
    certdir: `${dir}/cert/`,
    loggingdir: `${dir}/log/`,
    datadir: `${dir}/data/`,
    tempdir: `${dir}/tmp`,
    metadatadir: `${dir}/metadata/`,
    "metadata.sources": [{ type: "flatfile", directory: `${dir}/metadata` }],
    technicalcontact_name: "Tests",
    technicalcontact_email: "tests@example.test",
    secretsalt: randomBytes(16).toString("hex"),
    "auth.adminpassword": randomBytes(16).toString("hex"),
    "admin.protectindexpage": false,
    timezone: "UTC",
    "logging.level": 4,
    "logging.handler": "errorlog",
    "enable.saml20-idp": true,
    "module.enable": { exampleauth: true, core: true, saml: true },
    "store.type": "phpsession",
    "session.cookie.secure": false,
    "session.phpsession.savepath": `${dir}/tmp`,
    "language.available": ["en"],
  };
  writeFileSync(join(dir, "config", "config.json"), JSON.stringify(config));
  writeFileSync(join(dir, "config", "config.php"), fromJson("config.json", "config"));
  const users = Object.fromEntries(
    accounts.map((account) => [
      `${account.username}:${account.password}`,
      { email: [account.email], name: [account.name ?? account.username], groups: account.groups ?? [] },
    ]),
  );
  writeFileSync(
    join(dir, "config", "authsources.json"),
    JSON.stringify({ admin: ["core:AdminPassword"], "example-userpass": ["exampleauth:UserPass", users] }),
  );
  // exampleauth:UserPass takes its users as the source's own keys, beside the class name.
  writeFileSync(
    join(dir, "config", "authsources.php"),
    `<?php\n$raw = json_decode(file_get_contents(__DIR__ . '/authsources.json'), true);\n$config = ['admin' => $raw['admin'], 'example-userpass' => array_merge([$raw['example-userpass'][0]], $raw['example-userpass'][1])];\n`,
  );
  writeFileSync(
    join(dir, "metadata", "saml20-idp-hosted.json"),
    JSON.stringify({
      "__DYNAMIC:1__": { host: "__DEFAULT__", privatekey: "idp.pem", certificate: "idp.crt", auth: "example-userpass", "sign.logout": true },
    }),
  );
  writeFileSync(join(dir, "metadata", "saml20-idp-hosted.php"), fromJson("saml20-idp-hosted.json", "metadata"));
  const sps: Record<string, unknown> = {};
  const writeSps = () => {
    writeFileSync(join(dir, "metadata", "saml20-sp-remote.json"), JSON.stringify(sps));
    writeFileSync(join(dir, "metadata", "saml20-sp-remote.php"), fromJson("saml20-sp-remote.json", "metadata"));
  };
  writeSps();
  const { child } = await spawnUntilReady("php", ["-S", `127.0.0.1:${port}`, join(dir, "router.php")], {
    name: "simplesamlphp",
    readyPattern: /Development Server .* started/,
    env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: join(dir, "config") },
    timeoutMs: 20_000,
  });
  return {
    baseUrl,
    metadataUrl: `${baseUrl}saml2/idp/metadata.php`,
    addServiceProvider(sp) {
      sps[sp.entityId] = {
        AssertionConsumerService: sp.acsUrl,
        SingleLogoutService: [{ Binding: REDIRECT, Location: sp.sloUrl }],
        NameIDFormat: EMAIL_FORMAT,
        "simplesaml.nameidattribute": "email",
        certData: sp.certificatePem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""),
        "validate.authnrequest": true,
        "validate.logout": true,
      };
      writeSps();
    },
    async stop() {
      await child.stop(2_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
