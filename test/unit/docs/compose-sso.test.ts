/**
 * The compose `sso` profile (Keycloak with the "beta" realm, and the one-shot that onboards "Beta
 * Logistics" through the org CLI) hangs together: there is no Docker engine in CI, so this reads
 * docker-compose.yml and ops/keycloak/beta-realm.json and checks that what each side expects of
 * the other is there — one issuer for browser and server, the redirect URI the product builds
 * from PUBLIC_URL, PKCE, the groups claim the admin mapping reads, and CLI flags that exist.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { expect } from "chai";
import { parse } from "yaml";
import { z } from "zod";
import { COMPOSE_FILE } from "../../../scripts/docs/compose-env";

const root = dirname(COMPOSE_FILE);

const serviceSchema = z.object({
  image: z.string().optional(),
  profiles: z.array(z.string()).optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.string().nullable()).optional(),
  ports: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  networks: z.record(z.string(), z.object({ aliases: z.array(z.string()) })).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  restart: z.string().optional(),
});
const compose = z
  .object({ "x-app-env": z.record(z.string(), z.string().nullable()), services: z.record(z.string(), serviceSchema) })
  .parse(parse(readFileSync(COMPOSE_FILE, "utf8"), { merge: true }));
const services = compose.services;
const keycloak = services.keycloak!;
const setup = services["sso-setup"]!;

const mapperSchema = z.object({ name: z.string(), protocolMapper: z.string(), config: z.record(z.string(), z.string()) });
const realmSchema = z.object({
  realm: z.string(),
  enabled: z.literal(true),
  groups: z.array(z.object({ name: z.string(), path: z.string() })),
  users: z.array(
    z.object({
      email: z.string(),
      emailVerified: z.boolean(),
      enabled: z.boolean(),
      attributes: z.record(z.string(), z.array(z.string())).optional(),
      groups: z.array(z.string()),
      credentials: z.array(z.object({ type: z.string(), value: z.string(), temporary: z.boolean() })),
    }),
  ),
  clients: z.array(
    z.object({
      clientId: z.string(),
      publicClient: z.boolean(),
      secret: z.string().optional(),
      standardFlowEnabled: z.boolean(),
      implicitFlowEnabled: z.boolean(),
      directAccessGrantsEnabled: z.boolean(),
      redirectUris: z.array(z.string()),
      attributes: z.record(z.string(), z.string()),
      protocolMappers: z.array(mapperSchema),
    }),
  ),
  components: z.object({
    "org.keycloak.userprofile.UserProfileProvider": z.array(z.object({ config: z.object({ "kc.user.profile.config": z.array(z.string()) }) })),
  }),
});
const realmPath = resolve(root, "ops/keycloak/beta-realm.json");
const realm = realmSchema.parse(JSON.parse(readFileSync(realmPath, "utf8")));
const client = realm.clients.find((candidate) => candidate.clientId === "skillnet-chat");

/** The org CLI's flags as issue 32's contract names them; `bare` ones take no value. */
const CLI_FLAGS: Record<string, { required: string[]; optional: string[]; bare: string[] }> = {
  create: { required: ["--name", "--admin-email"], optional: ["--slug"], bare: [] },
  "idp set": {
    required: ["--org", "--issuer", "--client-id", "--client-secret", "--display-name", "--domains"],
    optional: ["--admin-groups", "--groups-claim", "--id"],
    bare: ["--jit", "--trust-email", "--clear-client-secret"],
  },
  /** `idp set --protocol saml` (documented, never called by Compose's one-shot, which sets up OpenID Connect). */
  "idp set --protocol saml": {
    required: ["--org", "--protocol", "--display-name"],
    optional: ["--metadata-url", "--metadata-file", "--domains", "--admin-groups", "--groups-claim", "--email-attribute"],
    bare: ["--jit", "--allow-idp-initiated"],
  },
};

/** Words of a plain `sh -c` script, split into commands at unquoted `&&`, `||` and `;` (quotes, no expansions). */
function shellCommands(script: string): string[][] {
  const commands: string[][] = [[]];
  for (const [, operator, double, single, bare] of script.matchAll(/\s*(?:(&&|\|\||;)|"([^"]*)"|'([^']*)'|([^\s"';&|]+))/g)) {
    if (operator) commands.push([]);
    else commands.at(-1)!.push(double ?? single ?? bare!);
  }
  return commands.filter((words) => words.length > 0);
}

interface CliCall {
  subcommand: string;
  flags: Map<string, string | true>;
}

/** The org CLI invocations of the one-shot's script, flags read by the contract (a flag that takes a value consumes the next word). */
function orgCliCalls(script: string): CliCall[] {
  return shellCommands(script)
    .filter((words) => words[0] === "node" && words[1] === "dist/ops/cli/org.js")
    .map((words) => {
      const rest = words.slice(2);
      const subcommand = rest[0] === "idp" ? `${rest.shift()} ${rest.shift()}` : rest.shift()!;
      const spec = CLI_FLAGS[subcommand];
      expect(spec, `org CLI subcommand "${subcommand}" is in the contract`).to.not.equal(undefined);
      const flags = new Map<string, string | true>();
      while (rest.length > 0) {
        const flag = rest.shift()!;
        if (spec!.bare.includes(flag)) flags.set(flag, true);
        else if ([...spec!.required, ...spec!.optional].includes(flag)) flags.set(flag, rest.shift() ?? "");
        else expect.fail(`org ${subcommand}: "${flag}" is not a flag of the contract`);
      }
      for (const flag of spec!.required) expect(flags.get(flag), `org ${subcommand} ${flag}`).to.be.a("string").and.not.equal("");
      return { subcommand, flags };
    });
}

/** `${NAME:-fallback}` → fallback; anything else as it is. */
function composeDefault(value: string | null | undefined): string | undefined {
  return value?.replace(/^\$\{[A-Z_]+:-([^}]*)\}$/, "$1");
}

describe("docker-compose.yml sso profile", () => {
  const script = setup.command?.[0] === "sh" && setup.command[1] === "-c" ? setup.command[2]! : "";
  // Read in a hook, so a flag outside the contract fails the suite as a test, not the whole run.
  let calls: CliCall[] = [];
  let create: CliCall | undefined;
  let idp: CliCall | undefined;
  before(() => {
    calls = orgCliCalls(script);
    create = calls.find((call) => call.subcommand === "create");
    idp = calls.find((call) => call.subcommand === "idp set");
  });
  const issuer = `${keycloak.environment?.KC_HOSTNAME}/realms/${realm.realm}`;

  it("is opt-in: only keycloak and sso-setup are in it, and a plain `up` starts neither", () => {
    const inProfile = Object.entries(services)
      .filter(([, service]) => service.profiles?.includes("sso"))
      .map(([name]) => name);
    expect(inProfile.sort()).to.deep.equal(["keycloak", "sso-setup"]);
    for (const name of ["postgres", "redis", "migrate", "server", "worker"]) expect(services[name]!.profiles, name).to.equal(undefined);
  });

  it("runs a pinned official Keycloak in dev mode that imports the realm file", () => {
    expect(keycloak.image).to.match(/^quay\.io\/keycloak\/keycloak:\d+\.\d+\.\d+$/);
    expect(keycloak.command).to.deep.equal(["start-dev", "--import-realm"]);
    const mount = keycloak.volumes?.find((volume) => volume.includes("/opt/keycloak/data/import/"));
    expect(mount, "the realm is mounted into Keycloak's import folder").to.be.a("string");
    expect(resolve(root, mount!.split(":")[0]!)).to.equal(realmPath);
    expect(existsSync(realmPath)).to.equal(true);
    expect(keycloak.environment?.KC_HEALTH_ENABLED).to.equal("true");
    expect(keycloak.healthcheck?.test.join(" ")).to.include("/health/ready");
  });

  it("gives browser and server one issuer: *.localhost on the host, the same name as a network alias inside", () => {
    const hostname = new URL(keycloak.environment?.KC_HOSTNAME ?? "");
    expect(hostname.hostname.endsWith(".localhost"), "browsers resolve *.localhost to the loopback address").to.equal(true);
    expect(keycloak.networks?.default?.aliases).to.include(hostname.hostname);
    // The port the browser reaches on the host is the port Keycloak listens on in the network.
    expect(keycloak.environment?.KC_HTTP_PORT).to.equal(hostname.port);
    expect(keycloak.ports).to.deep.equal([`127.0.0.1:${hostname.port}:${hostname.port}`]);
    expect(idp?.flags.get("--issuer")).to.equal(issuer);
  });

  it("onboards after the migrations and once Keycloak is ready, with the app image and its settings", () => {
    expect(setup.depends_on).to.deep.equal({ migrate: { condition: "service_completed_successfully" }, keycloak: { condition: "service_healthy" } });
    expect(setup.image).to.equal(services.server!.image);
    expect(setup.environment).to.deep.equal(compose["x-app-env"]);
    expect(setup.restart).to.equal("no");
    expect(compose["x-app-env"].SECRETS_KEY, "client secrets are sealed with a key the operator keeps").to.match(/^\$\{SECRETS_KEY:\?set /);
  });

  it("calls the org CLI with the contract's flags only: create, then idp set for the same organisation", () => {
    expect(calls.map((call) => call.subcommand)).to.deep.equal(["create", "idp set"]);
    expect(create!.flags.get("--name")).to.equal("Beta Logistics");
    expect(idp!.flags.get("--org")).to.equal(create!.flags.get("--slug"));
    expect(idp!.flags.get("--jit")).to.equal(true);
  });

  it("hands the CLI what the realm declares: client id and secret, the admins' group, the people's domain", () => {
    expect(idp!.flags.get("--client-id")).to.equal(client?.clientId);
    expect(idp!.flags.get("--client-secret")).to.equal(client?.secret);
    expect(idp!.flags.get("--groups-claim")).to.equal(
      client?.protocolMappers.find((mapper) => mapper.protocolMapper === "oidc-group-membership-mapper")?.config["claim.name"],
    );
    const adminGroup = String(idp!.flags.get("--admin-groups"));
    const admin = realm.users.find((user) => user.email === create!.flags.get("--admin-email"));
    expect(admin, "the organisation's first admin has an account in the realm").to.not.equal(undefined);
    expect(admin!.groups).to.include(`/${adminGroup}`);
    const domains = String(idp!.flags.get("--domains")).split(",");
    for (const user of realm.users) expect(domains).to.include(user.email.split("@")[1]);
  });
});

describe("ops/keycloak/beta-realm.json", () => {
  const publicUrl = composeDefault(compose["x-app-env"].PUBLIC_URL);

  it("declares a confidential client with the code flow only and PKCE S256 required", () => {
    expect(realm.realm).to.equal("beta");
    expect(client, "client skillnet-chat").to.not.equal(undefined);
    expect(client!.publicClient).to.equal(false);
    expect(client!.secret).to.be.a("string");
    expect([client!.standardFlowEnabled, client!.implicitFlowEnabled, client!.directAccessGrantsEnabled]).to.deep.equal([true, false, false]);
    expect(client!.attributes["pkce.code.challenge.method"]).to.equal("S256");
  });

  it("allows exactly the product's callback and post-logout address under compose's PUBLIC_URL", () => {
    expect(publicUrl).to.equal("http://localhost:3000");
    expect(client!.redirectUris).to.deep.equal([`${publicUrl}/api/v1/auth/oidc/callback`]);
    expect(client!.attributes["post.logout.redirect.uris"]).to.equal(`${publicUrl}/`);
  });

  it("puts groups (plain names), department and the API audience into the tokens", () => {
    const byType = (type: string) => client!.protocolMappers.find((mapper) => mapper.protocolMapper === type)?.config;
    const groups = byType("oidc-group-membership-mapper");
    expect(groups).to.include({
      "claim.name": "groups",
      "full.path": "false",
      "id.token.claim": "true",
      "access.token.claim": "true",
      "userinfo.token.claim": "true",
    });
    expect(byType("oidc-usermodel-attribute-mapper")).to.include({ "user.attribute": "department", "claim.name": "department" });
    // Access tokens at the API must carry the provider's API audience, by default the client id.
    expect(byType("oidc-audience-mapper")).to.include({ "included.client.audience": "skillnet-chat", "access.token.claim": "true" });
  });

  it("has an employee and an admin in skillnet-admins, with verified emails and permanent passwords", () => {
    expect(realm.groups.map((group) => group.path)).to.include("/skillnet-admins");
    expect(realm.users).to.have.length(2);
    for (const user of realm.users) {
      expect([user.enabled, user.emailVerified], user.email).to.deep.equal([true, true]);
      expect(user.credentials, user.email).to.deep.equal([{ type: "password", value: user.credentials[0]!.value, temporary: false }]);
      expect(user.attributes?.department, user.email).to.have.length(1);
    }
    expect(realm.users.filter((user) => user.groups.includes("/skillnet-admins"))).to.have.length(1);
  });

  it("declares department in the user profile, so Keycloak keeps the attribute the mapper reads", () => {
    const [provider] = realm.components["org.keycloak.userprofile.UserProfileProvider"];
    const profile = z.object({ attributes: z.array(z.object({ name: z.string() })) }).parse(JSON.parse(provider!.config["kc.user.profile.config"][0]!));
    expect(profile.attributes.map((attribute) => attribute.name)).to.deep.equal(["username", "email", "firstName", "lastName", "department"]);
  });
});

describe("org CLI flags in the sign-in docs", () => {
  it("names only the contract's flags (and Compose's own) in docs/single-sign-on.md and the onboarding steps", () => {
    const operations = readFileSync(resolve(root, "docs/operations.md"), "utf8");
    const onboarding = operations.slice(operations.indexOf("## Onboarding a company"), operations.indexOf("## Docker Compose\n"));
    expect(onboarding, "docs/operations.md has its onboarding section").to.include("org -- create");
    const text = readFileSync(resolve(root, "docs/single-sign-on.md"), "utf8") + onboarding;
    const known = new Set([...Object.values(CLI_FLAGS).flatMap((spec) => [...spec.required, ...spec.optional, ...spec.bare]), "--profile", "--build", "--rm"]);
    const named = new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]+/g)].map(([flag]) => flag));
    expect([...named].filter((flag) => !known.has(flag))).to.deep.equal([]);
    expect(named.has("--admin-groups") && named.has("--jit"), "the docs do name CLI flags").to.equal(true);
  });
});
