/**
 * The migration that gives domains an owner (20261204211000_organisation_domains) on data as it
 * stood before: each domain a provider listed becomes verified (by the operator) only where that
 * organisation has people on it and no other organisation does; a squatted, shared or unused one
 * is pending. Run inside one transaction on the lane's database (down, the old data, up), then
 * rolled back, so nothing is left behind.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import * as migration from "../../../db/migrations/20261204211000_organisation_domains";
import { unique } from "../../support/sso";
import { databaseSuite } from "../../support/database";

class RolledBack extends Error {}

describe("migration 20261204211000_organisation_domains: existing allowed domains", function () {
  const lane = databaseSuite(this);

  it("verifies a listed domain only where the listing organisation alone has people on it; the rest stay pending", async () => {
    const tag = unique();
    const [own, squatted, shared, unused] = ["own", "squatted", "shared", "unused"].map((name) => `${name}-${tag}.test`) as [string, string, string, string];
    let rows: Array<{ org_id: string; domain: string; status: string; method: string | null; token: string }> = [];
    let lister = "";
    let victim = "";
    await lane.deps.db
      .transaction(async (trx: Knex.Transaction) => {
        await migration.down(trx);
        const orgs = await trx("organizations")
          .insert([
            { name: "Lister", slug: `lister-${tag}` },
            { name: "Victim", slug: `victim-${tag}` },
          ])
          .returning("id");
        [lister = "", victim = ""] = orgs.map((org: { id: string }) => org.id);
        const person = (orgId: string, email: string) => ({ org_id: orgId, email, name: email, role: "employee", locale: "en" });
        await trx("users").insert([person(lister, `a@${own}`), person(victim, `b@${squatted}`), person(lister, `c@${shared}`), person(victim, `d@${shared}`)]);
        await trx("identity_providers").insert({
          org_id: lister,
          display_name: "Lister SSO",
          issuer: `https://idp-${tag}.test`,
          client_id: "c",
          allowed_domains: [own, squatted, shared, unused.toUpperCase()],
        });
        await migration.up(trx);
        rows = await trx("organisation_domains").whereIn("org_id", [lister, victim]).orderBy("domain").select("org_id", "domain", "status", "method", "token");
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    const byDomain = Object.fromEntries(rows.map((row) => [row.domain, { org: row.org_id, status: row.status, method: row.method }]));
    expect(byDomain).to.deep.equal({
      [own]: { org: lister, status: "verified", method: "operator" },
      [shared]: { org: lister, status: "pending", method: null },
      [squatted]: { org: lister, status: "pending", method: null },
      [unused]: { org: lister, status: "pending", method: null },
    });
    expect(new Set(rows.map((row) => row.token)).size, "a token of its own for each").to.equal(4);
    for (const row of rows) expect(row.token).to.match(/^[0-9a-f]{64}$/);
    expect(await lane.deps.db("organizations").where({ id: lister }).first(), "rolled back").to.equal(undefined);
  });
});
