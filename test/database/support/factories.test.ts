/**
 * The factories database suites build their rows with: each organisation is new and apart, people
 * and documents land in the organisation they are built for, the usual pair of organisations each
 * with an admin comes in one call, and dropAll() removes what was built, people and documents with it.
 */
import { expect } from "chai";
import { databaseSuite } from "../../support/database";
import { factories } from "../../support/factories";

describe("test factories (test/support/factories)", function () {
  const lane = databaseSuite(this);

  it("builds organisations apart, each admin and person and document in its own", async () => {
    const [a, b] = await lane.build.buildOrgsWithAdmins();
    expect(a!.org.id).to.not.equal(b!.org.id);
    expect(a!.org.slug).to.not.equal(b!.org.slug);
    const admins = await lane.db("users").whereIn("id", [a!.admin.id, b!.admin.id]).select("id", "org_id", "role");
    expect(admins).to.have.deep.members([
      { id: a!.admin.id, org_id: a!.org.id, role: "admin" },
      { id: b!.admin.id, org_id: b!.org.id, role: "admin" },
    ]);
    const person = await lane.build.buildPerson(a!.org.id);
    const document = await lane.build.buildDocument(b!.org.id, { title: "Handbook" });
    expect(person).to.include({ orgId: a!.org.id, role: "employee" });
    expect(await lane.db("documents").where({ id: document.id }).first("org_id", "title", "status")).to.deep.equal({
      org_id: b!.org.id,
      title: "Handbook",
      status: "COMPLETED",
    });
    expect(lane.build.orgIds).to.include.members([a!.org.id, b!.org.id]);
  });

  it("drops every organisation it built, with its people and documents", async () => {
    const own = factories(lane.db);
    const org = await own.buildOrg();
    const admin = await own.buildAdmin(org.id);
    const document = await own.buildDocument(org.id);
    await own.dropAll();
    expect(await lane.db("organizations").where({ id: org.id }).first()).to.equal(undefined);
    expect(await lane.db("users").where({ id: admin.id }).first()).to.equal(undefined);
    expect(await lane.db("documents").where({ id: document.id }).first()).to.equal(undefined);
    expect(own.orgIds).to.deep.equal([]);
  });
});
