/**
 * `npm run org -- idp set --protocol saml` goes through the API's command and validation: the
 * metadata file is read and stored, the SP key pair is made once and kept on a second `set`,
 * the private key is stored sealed, a metadata file with a DOCTYPE is refused and nothing changes,
 * and OpenID-only flags are refused with --protocol saml.
 */
import { expect } from "chai";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { listIdentityProvidersOfOrg } from "../../../db/queries/identity";
import { Refusal } from "../../../lib/refusal";
import { parseCommandLine, UsageError } from "../../../ops/cli/org-args";
import { runSignInCommand } from "../../../ops/cli/org-sign-in";
import { databaseSuite } from "../../support/database";
import { TestIdp } from "../../support/saml-idp";
import { samlConfig } from "./helpers";

describe("org CLI: idp set --protocol saml", function () {
  const lane = databaseSuite(this);
  const idp = new TestIdp();

  /** The organisation's one provider: `idp set` without --id creates it, then changes it. */
  async function soleProviderOf(orgId: string) {
    const providers = await listIdentityProvidersOfOrg(lane.db, orgId);
    expect(providers).to.have.length(1);
    return providers[0]!;
  }

  async function run(argv: string[]): Promise<unknown[]> {
    const line = parseCommandLine(argv);
    if (line.help) throw new Error("help");
    const printed: unknown[] = [];
    const out = { result: (json: unknown) => void printed.push(json), progress: () => undefined, table: () => undefined };
    await runSignInCommand(
      line.command,
      line.values,
      { db: lane.db, config: samlConfig(lane), out, operator: { via: "cli" }, log: pino({ level: "silent" }) },
      line.args,
    );
    return printed;
  }

  it("stores the provider from a metadata file, keeps its SP key pair on a second set, and refuses unsafe metadata", async () => {
    const org = await lane.build.buildOrg();
    const domain = `cli-${randomUUID().slice(0, 8)}.example`;
    const file = join(tmpdir(), `idp-${randomUUID()}.xml`);
    writeFileSync(file, idp.metadata());
    const base = ["idp", "set", "--org", org.slug, "--protocol", "saml", "--display-name", "Campus", "--domains", domain, "--jit"];
    const [printed] = (await run([...base, "--metadata-file", file, "--admin-groups", "staff-admins"])) as Array<Record<string, unknown>>;
    expect(printed).to.not.have.property("sp_private_key_encrypted");
    expect(String(printed!.sp_metadata_url)).to.match(/\/api\/v1\/auth\/saml\/[0-9a-f-]{36}\/metadata$/);
    const stored = await soleProviderOf(org.id);
    expect(stored).to.include({ protocol: "saml", issuer: null, client_id: null, jit_enabled: true });
    expect(stored.saml_config).to.include({ entity_id: idp.entityId, allow_idp_initiated: false, metadata_url: null });
    expect(stored.sp_private_key_encrypted).to.match(/^v1\./);
    expect(stored.claim_mapping.admin_groups).to.deep.equal(["staff-admins"]);

    await run([...base, "--allow-idp-initiated"]);
    const again = await soleProviderOf(org.id);
    expect(again.sp_certificate, "the IdP keeps trusting the same SP certificate").to.equal(stored.sp_certificate);
    expect(again.saml_config).to.include({ entity_id: idp.entityId, allow_idp_initiated: true });

    writeFileSync(file, `<!DOCTYPE x [<!ENTITY e "e">]>${idp.metadata()}`);
    const refused = await run([...base, "--metadata-file", file]).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(Refusal).with.property("code", "SAML_METADATA_INVALID");
    expect((await soleProviderOf(org.id)).updated_at).to.deep.equal(again.updated_at);

    const mixed = await run([...base, "--metadata-file", file, "--client-id", "x"]).catch((error: unknown) => error);
    expect(mixed).to.be.instanceOf(UsageError);
  });
});
