/**
 * Review finding F10 on the real stack, with two organisations: an integration key works only
 * while its creator is an active admin of its organisation (demoted or deactivated by another
 * admin → 401 INTEGRATION_KEY_CREATOR_INACTIVE, whatever path); an organisation holds at most
 * MAX_ACTIVE_INTEGRATION_KEYS live keys (409 INTEGRATION_KEY_LIMIT), another organisation is not
 * affected; and a key's document PUTs count against the organisation's upload and re-index
 * windows shared with the console (a second server node with small limits): one organisation's
 * keys together cannot exceed its limit, and its flood leaves the other organisation's allowance whole.
 */
import { expect } from "chai";
import { MAX_ACTIVE_INTEGRATION_KEYS } from "../../../db/queries/integration-keys";
import { parseConfig } from "../../../lib/config";
import { startServer, type RunningServer } from "../../../server/server";
import { api, upload } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { newIntegrationKey, putSourced } from "../../support/sourced-documents";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";
import { freshOrganisation } from "./allowance/helpers";
import { testEnv } from "../../support/tunables";

const note = (marker: string): string => `# Note ${marker}\n\nThe travel policy reference ${marker} applies to every trip.\n`;

describe("integration keys: lifetime, cap and shared upload windows (F10)", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000, resetModel: false });
  const db = () => stack.server.deps.db;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let secondAdminA: Person;
  let adminB: Person;

  const people = (key: string, baseUrl = stack.baseUrl) => api(baseUrl, "GET", "/api/v1/integrations/people", { token: key });
  const patchPerson = (id: string, body: unknown, token = adminA.token) => api(stack.baseUrl, "PATCH", `/api/v1/admin/people/${id}`, { token, body });

  before(async () => {
    orgA = await freshOrganisation(stack, "Key lifetime A");
    orgB = await freshOrganisation(stack, "Key lifetime B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    secondAdminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("stops a key once its creator is demoted, and works again only if they are an admin again; another organisation's key is untouched", async () => {
    const departing = await freshUser(stack, { role: "admin", orgId: orgA });
    const key = await newIntegrationKey(stack, departing.token, ["people:read"]);
    const keyB = await newIntegrationKey(stack, adminB.token, ["people:read"]);
    expect((await people(key.key)).status).to.equal(200);

    expect((await patchPerson(departing.id, { role: "employee" })).status).to.equal(200);
    const refused = await people(key.key);
    expect(refused.status).to.equal(401);
    expect(refused.body.error.code).to.equal("INTEGRATION_KEY_CREATOR_INACTIVE");
    expect(refused.body).not.to.have.property("people");
    expect((await people(keyB.key)).status, "organisation B's key").to.equal(200);
    // The console's list says why the key stopped (it still counts towards the cap until revoked).
    const listed = await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: adminA.token });
    const standing = (id: string) => listed.body.integration_keys.find((k: { id: string }) => k.id === id)?.creator_is_admin;
    expect(standing(key.id)).to.equal(false);
    const listedB = await api(stack.baseUrl, "GET", "/api/v1/admin/integration-keys", { token: adminB.token });
    expect(listedB.body.integration_keys.map((k: { creator_is_admin: boolean }) => k.creator_is_admin)).to.deep.equal([true]);

    expect((await patchPerson(departing.id, { role: "admin" })).status).to.equal(200);
    expect((await people(key.key)).status, "an admin again").to.equal(200);
  });

  it("stops a key once its creator is deactivated (the review's recipe), or removed from the organisation", async () => {
    const departing = await freshUser(stack, { role: "admin", orgId: orgA });
    const deactivated = await newIntegrationKey(stack, departing.token, ["people:read"]);
    expect((await patchPerson(departing.id, { is_active: false }, secondAdminA.token)).status).to.equal(200);
    const refused = await people(deactivated.key);
    expect(refused.status).to.equal(401);
    expect(refused.body.error.code).to.equal("INTEGRATION_KEY_CREATOR_INACTIVE");

    // A creator gone altogether (created_by SET NULL), or one moved out of the organisation: no admin stands behind the key.
    const orphan = await newIntegrationKey(stack, secondAdminA.token, ["people:read"]);
    await db()("integration_keys").where({ id: orphan.id }).update({ created_by: null });
    expect((await people(orphan.key)).body.error.code).to.equal("INTEGRATION_KEY_CREATOR_INACTIVE");
    const moved = await newIntegrationKey(stack, secondAdminA.token, ["people:read"]);
    await db()("integration_keys").where({ id: moved.id }).update({ created_by: adminB.id });
    expect((await people(moved.key)).body.error.code, "an admin of another organisation").to.equal("INTEGRATION_KEY_CREATOR_INACTIVE");
  });

  it(`caps live keys at ${MAX_ACTIVE_INTEGRATION_KEYS} per organisation (409 INTEGRATION_KEY_LIMIT); revoked and expired ones do not count, another organisation is not affected`, async () => {
    const capped = await freshOrganisation(stack, "Key cap");
    try {
      const admin = await freshUser(stack, { role: "admin", orgId: capped });
      const create = (body: unknown, token = admin.token) => api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token, body });
      const expired = await newIntegrationKey(stack, admin.token, ["people:read"]);
      await db()("integration_keys")
        .where({ id: expired.id })
        .update({ expires_at: new Date(Date.now() - 1000) });
      const created = await Promise.all(
        Array.from({ length: MAX_ACTIVE_INTEGRATION_KEYS + 3 }, (_, i) => create({ name: `Sync ${i}`, scopes: ["people:read"] })),
      );
      const statuses = created.map((answer) => answer.status).sort();
      expect(
        statuses.filter((status) => status === 201),
        "concurrent creations stop at the cap",
      ).to.have.length(MAX_ACTIVE_INTEGRATION_KEYS);
      const over = created.find((answer) => answer.status === 409)!;
      expect(over.body.error.code).to.equal("INTEGRATION_KEY_LIMIT");
      expect(over.body.error.limit).to.equal(MAX_ACTIVE_INTEGRATION_KEYS);
      const [live] = await db()("integration_keys").where({ org_id: capped }).whereNull("revoked_at").count<{ count: string }[]>("* as count");
      expect(Number(live?.count)).to.equal(MAX_ACTIVE_INTEGRATION_KEYS + 1);

      expect((await create({ name: "B sync", scopes: ["people:read"] }, adminB.token)).status, "organisation B").to.equal(201);
      const revoked = created.find((answer) => answer.status === 201)!.body.integration_key.id;
      expect((await api(stack.baseUrl, "DELETE", `/api/v1/admin/integration-keys/${revoked}`, { token: admin.token })).status).to.equal(200);
      expect((await create({ name: "Rotated", scopes: ["people:read"] })).status, "after a revocation").to.equal(201);
    } finally {
      await dropOrganisations(db(), [capped]);
    }
  });

  describe("document PUTs through keys count against the organisation's upload and re-index windows", () => {
    let node: RunningServer;
    const limits = {
      RATE_LIMIT_UPLOADS_PER_MINUTE: "2",
      RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: "5",
      RATE_LIMIT_REINDEX_PER_MINUTE: "20",
      RATE_LIMIT_ORG_REINDEX_PER_MINUTE: "1",
    };

    before(async () => {
      node = await startServer(parseConfig(testEnv({ ...process.env, ...limits })), { port: 0, host: "127.0.0.1" });
    });
    after(async () => {
      await Promise.race([node?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    });

    it("organisation B's keys together stop at B's upload limit, and B's flood leaves A's console and keys their whole allowance", async () => {
      const keysB = await Promise.all([1, 2, 3].map(() => newIntegrationKey(stack, adminB.token, ["documents:write"])));
      const put = (key: string, id: string) => putSourced(node.url, key, id, { name: `${id}.md`, bytes: note(`${id}-${key.slice(-6)}`) });
      const answers = [];
      for (const [i, key] of keysB.entries()) for (let n = 0; n < 3; n += 1) answers.push(await put(key.key, `flood-${i}-${n}`));
      const accepted = answers.filter((answer) => answer.status === 201);
      expect(accepted, "B's three keys together (2 each at most): B's limit of 5").to.have.length(5);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused.map((answer) => answer.body.error.code)).to.deep.equal(Array(4).fill("RATE_LIMITED"));
      expect(refused.map((answer) => answer.body.error.limit)).to.include.members(["user", "organisation"]);
      expect(refused.every((answer) => Number(answer.headers.get("retry-after")) >= 1)).to.equal(true);
      const [stored] = await db()("documents").where({ org_id: orgB }).whereLike("external_id", "flood-%").count<{ count: string }[]>("* as count");
      expect(Number(stored?.count), "nothing stored for a refused PUT").to.equal(5);

      const consoleA = await upload(node.url, adminA.token, { name: "a-console.md", bytes: Buffer.from(note("a-console")) });
      expect(consoleA.status, "organisation A's console upload").to.equal(202);
      const keyA = await newIntegrationKey(stack, adminA.token, ["documents:write"]);
      expect((await put(keyA.key, "a-key-doc")).status, "organisation A's key").to.equal(201);
    });

    it("counts a PUT of new bytes as a re-index: past the organisation's re-index window it is refused and the stored version is kept", async () => {
      const keys = await Promise.all([1, 2].map(() => newIntegrationKey(stack, adminA.token, ["documents:write"])));
      const version = (key: string, marker: string) => putSourced(node.url, key, "handbook", { name: "handbook.md", bytes: note(marker) });
      // A's upload window holds the two uploads of the test above: these three fit in it (5).
      expect((await version(keys[0]!.key, "handbook-v1")).status).to.equal(201);
      const updated = await version(keys[0]!.key, "handbook-v2");
      expect(updated.status, JSON.stringify(updated.body)).to.equal(202);
      expect(updated.body.result).to.equal("updated");
      const refused = await version(keys[1]!.key, "handbook-v3");
      expect(refused.status, "another key of the same organisation").to.equal(429);
      expect(refused.body.error).to.include({ code: "RATE_LIMITED", limit: "organisation" });
      expect(refused.body.error.message).to.match(/reindex/);
      const row = await db()("documents").where({ org_id: orgA, external_id: "handbook" }).first("ingest_generation");
      expect(row.ingest_generation, "the refused version was not stored").to.equal(1);
    });
  });
});
