/**
 * `npm run org -- idp …` with several providers, through the command line's own parser and the
 * sign-in commands it runs (no child process: ops/cli/org.ts only wires these to a database and
 * standard output), on real PostgreSQL: `idp add` and `idp list`, `--id` for set and remove, and
 * the form without `--id` refused rather than guessing once there are two.
 */
import { expect } from "chai";
import pino from "pino";
import { listIdentityProvidersOfOrg } from "../../../db/queries/identity";
import { Refusal } from "../../../lib/refusal";
import { parseCommandLine, UsageError } from "../../../ops/cli/org-args";
import type { Output } from "../../../ops/cli/org-output";
import { runSignInCommand } from "../../../ops/cli/org-sign-in";
import { databaseSuite } from "../../support/database";
import { unique } from "../../support/sso";

describe("ops/cli org idp: several providers per organisation", function () {
  const lane = databaseSuite(this);

  /** Runs one command line as `npm run org --` would, returning what it printed. */
  async function org(argv: string[]): Promise<{ json: unknown; lines: string[] }> {
    const line = parseCommandLine(argv);
    if (line.help) throw new Error("usage shown");
    const printed: { json: unknown; lines: string[] } = { json: undefined, lines: [] };
    const out: Output = {
      result: (json, lines) => Object.assign(printed, { json, lines }),
      table: (json, lines) => Object.assign(printed, { json, lines }),
      progress: () => undefined,
    };
    const session = { db: lane.db, config: lane.config, out, operator: { via: "cli" as const }, log: pino({ level: "silent" }) };
    await runSignInCommand(line.command, line.values, session, line.args);
    return printed;
  }
  async function refused(work: Promise<unknown>): Promise<unknown> {
    return work.then(
      () => expect.fail("refused"),
      (error: unknown) => error,
    );
  }

  it("adds and lists providers, changes and removes one by --id, and refuses to guess without it", async () => {
    const { id: orgId, slug } = await lane.build.buildOrg();
    const staff = `staff-${unique()}.example`;
    const contractors = `contractors-${unique()}.example`;
    const provider = (name: string, domain: string) => [
      "--org",
      slug,
      "--issuer",
      `https://${name}.idp.example`,
      "--client-id",
      name,
      "--display-name",
      `Acme ${name}`,
      "--domains",
      domain,
    ];

    const entra = (await org(["idp", "set", ...provider("entra", staff)])).json as { id: string };
    const google = (await org(["idp", "add", ...provider("google", contractors)])).json as { id: string };
    expect((await org(["idp", "list", "--org", slug])).lines).to.deep.equal([
      `${entra.id}  Acme entra  https://entra.idp.example  domains: ${staff}`,
      `${google.id}  Acme google  https://google.idp.example  domains: ${contractors}`,
    ]);
    const overlap = await refused(org(["idp", "add", ...provider("okta", staff)]));
    expect(overlap).to.be.instanceOf(Refusal).and.include({ code: "DOMAIN_HAS_PROVIDER" });
    for (const argv of [
      ["idp", "set", ...provider("entra", staff)],
      ["idp", "show", "--org", slug],
      ["idp", "remove", "--org", slug],
    ])
      expect(await refused(org(argv)), argv.slice(0, 2).join(" "))
        .to.be.instanceOf(Refusal)
        .and.include({ code: "SEVERAL_IDENTITY_PROVIDERS" });

    await org(["idp", "set", "--id", google.id, ...provider("google", contractors), "--jit"]);
    expect((await org(["idp", "show", "--org", slug, "--id", google.id])).json).to.include({ id: google.id, jit_enabled: true });
    expect(await refused(org(["idp", "remove", "--org", slug, "--id", "not-a-uuid"]))).to.be.instanceOf(UsageError);
    expect(() => parseCommandLine(["idp", "add", "--org", slug, "--id", google.id])).to.throw(UsageError, '--id does not apply to "idp add"');
    expect((await org(["idp", "remove", "--org", slug, "--id", google.id])).lines).to.deep.equal([`${slug}: identity provider removed`]);
    expect((await listIdentityProvidersOfOrg(lane.db, orgId)).map((p) => p.id)).to.deep.equal([entra.id]);
    // One left: the form without --id addresses it again.
    expect((await org(["idp", "show", "--org", slug])).json).to.include({ id: entra.id });
  });
});
