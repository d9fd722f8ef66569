/**
 * INTEGRATION_RATE_LIMIT_PER_MINUTE on the real stack: a second server node (same Redis, Postgres
 * and workers) with a limit of 3, as test/server/limits.test.ts does for the other limits. A key
 * past its limit gets 429 RATE_LIMITED with retry_after (body and Retry-After header); another key
 * of the same organisation, and a key of another organisation, are counted apart and still work.
 */
import { expect } from "chai";
import { parseConfig } from "../../../lib/config";
import { startServer, type RunningServer } from "../../../server/server";
import { api } from "../../harness/client";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";
import { freshOrganisation } from "./allowance/helpers";
import { testEnv } from "../../support/tunables";

const LIMIT = 3;

describe("integration keys: INTEGRATION_RATE_LIMIT_PER_MINUTE (429 per key)", function () {
  const stack = stackSuite(this, { timeoutMs: 30_000, resetModel: false });
  let node: RunningServer;
  let orgA: string;
  let orgB: string;
  let adminA: Person;
  let adminB: Person;

  const newKey = async (admin: Person, name: string): Promise<string> => {
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", { token: admin.token, body: { name, scopes: ["people:read"] } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.key;
  };
  const people = (key: string) => api(node.url, "GET", "/api/v1/integrations/people", { token: key });

  before(async () => {
    node = await startServer(parseConfig(testEnv({ ...process.env, INTEGRATION_RATE_LIMIT_PER_MINUTE: String(LIMIT) })), { port: 0, host: "127.0.0.1" });
    orgA = await freshOrganisation(stack, "Key limits A");
    orgB = await freshOrganisation(stack, "Key limits B");
    adminA = await freshUser(stack, { role: "admin", orgId: orgA });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
  });
  after(async () => {
    await Promise.race([node?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgA, orgB]);
  });

  it("refuses a key past its limit with 429 RATE_LIMITED and retry_after; the organisation's other key and another organisation's are not affected", async () => {
    const busy = await newKey(adminA, "Busy sync");
    const other = await newKey(adminA, "Other sync");
    const elsewhere = await newKey(adminB, "B sync");

    for (let i = 0; i < LIMIT; i += 1) expect((await people(busy)).status, `request ${i + 1}`).to.equal(200);
    const refused = await people(busy);
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal("RATE_LIMITED");
    expect(refused.body.error.message).to.match(/at most 3 per minute/);
    expect(refused.body.error.retry_after).to.be.within(1, 60);
    expect(refused.headers.get("retry-after")).to.equal(String(refused.body.error.retry_after));
    expect(refused.body).not.to.have.property("people");

    const sibling = await people(other);
    expect(sibling.status, "another key of the same organisation").to.equal(200);
    expect(sibling.body.people.map((p: { email: string }) => p.email)).to.include(adminA.email);
    expect((await people(elsewhere)).status, "a key of another organisation").to.equal(200);
    expect((await people(busy)).status, "the busy key is still refused").to.equal(429);
  });
});
