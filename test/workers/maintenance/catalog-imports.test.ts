/**
 * The `catalog-imports` sweep on the real stack, with two organisations: an import finished longer
 * ago than CATALOG_IMPORT_RETENTION_MS goes with its problems (B's), a recent one stays (A's), and
 * a slot reserved by a server that died mid-read stops counting and is removed, so it cannot hold
 * one of B's three slots for good.
 */
import { expect } from "chai";
import { CATALOG_IMPORT_RETENTION_MS, pruneOldCatalogImports } from "../../../workers/maintenance/catalog-imports";
import { RECEIVING_EXPIRES_MS } from "../../../db/queries/catalog-import-slots";
import { api, waitFor } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser } from "../admin/helpers";

describe("catalog import pruning (maintenance: catalog-imports)", function () {
  const stack = stackSuite(this, { timeoutMs: 90_000 });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  const keys: Record<string, string> = {};

  before(async () => {
    orgA = await freshOrganisation(stack, "Prune A");
    orgB = await freshOrganisation(stack, "Prune B");
    for (const orgId of [orgA, orgB]) {
      const admin = await freshUser(stack, { role: "admin", orgId });
      keys[orgId] = (
        await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token: admin.token, body: { name: "LMS", scopes: ["catalog:write"] } })
      ).body.key;
    }
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  async function finishedImport(orgId: string): Promise<string> {
    const posted = await fetch(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys[orgId]}`, "content-type": "application/x-ndjson" },
      body: ["not json", JSON.stringify({ type: "skill_category", external_id: `cat-${orgId}`, name: "Kept" })].join("\n"),
    });
    expect(posted.status).to.equal(202);
    const { id } = ((await posted.json()) as { import: { id: string } }).import;
    await waitFor(async () => (await db()("catalog_imports").where({ id }).first("status"))?.status === "completed", 30_000, "the import to end");
    return id;
  }

  const problemsOf = async (id: string) => Number((await db()("catalog_import_problems").where({ import_id: id }).count("* as n").first())!.n);

  it("removes B's import finished past the retention with its problems, and an abandoned reservation; A's recent import stays", async () => {
    const old = await finishedImport(orgB);
    const recent = await finishedImport(orgA);
    expect(await problemsOf(old)).to.equal(1);
    await db()("catalog_imports")
      .where({ id: old })
      .update({ finished_at: new Date(Date.now() - CATALOG_IMPORT_RETENTION_MS - 60_000) });
    // Three reservations of B whose server died mid-read: past RECEIVING_EXPIRES_MS they no longer hold B's slots.
    const abandonedAt = new Date(Date.now() - RECEIVING_EXPIRES_MS - 60_000);
    await db()("catalog_imports").insert(
      Array.from({ length: 3 }, () => ({ org_id: orgB, format: "ndjson", status: "queued", step: "receive", byte_size: 0, created_at: abandonedAt })),
    );
    const posted = await fetch(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys[orgB]}`, "content-type": "application/x-ndjson" },
      body: JSON.stringify({ type: "skill_category", external_id: "cat-after", name: "After" }),
    });
    expect(posted.status, "abandoned reservations hold no slot").to.equal(202);
    await waitFor(
      async () =>
        Number(
          (await db()("catalog_imports")
            .where({ org_id: orgB })
            .whereIn("status", ["queued", "running"])
            .whereNot({ step: "receive" })
            .count("* as n")
            .first())!.n,
        ) === 0,
      30_000,
      "B's import to end",
    );

    const pruned = await pruneOldCatalogImports(db());
    expect(pruned.finished).to.be.at.least(1);
    expect(pruned.abandoned).to.be.at.least(3);
    expect(await db()("catalog_imports").where({ id: old }).first()).to.equal(undefined);
    expect(await problemsOf(old)).to.equal(0);
    expect(await db()("catalog_imports").where({ org_id: orgB, status: "queued", step: "receive" }).count("* as n").first()).to.deep.equal({ n: "0" });
    expect(await db()("catalog_imports").where({ id: recent }).first("status")).to.deep.equal({ status: "completed" });
    expect(await problemsOf(recent)).to.equal(1);
    expect((await api(stack.baseUrl, "GET", `/api/v1/integrations/catalog/imports/${old}`, { token: keys[orgB]! })).status).to.equal(404);
  });
});
