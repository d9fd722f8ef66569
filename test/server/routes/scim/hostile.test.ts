/**
 * What a careless or hostile caller sends to `/scim/v2`: every answer is a SCIM error message
 * with the right status and `scimType`, never a 500 and never the API's own error format, and
 * nothing stored is lost. Also: no token, a wrong or revoked token, the rate limit per token,
 * and the routes in the OpenAPI document.
 */
import { expect } from "chai";
import { parseConfig } from "../../../../lib/config";
import { startServer, type RunningServer } from "../../../../server/server";
import { api } from "../../../harness/client";
import { dropOrganisations } from "../../../support/organizations";
import { stackSuite } from "../../../support/suite";
import { ERROR_SCHEMA, PATCH_OP, USER_SCHEMA, scim, scimOrganisation, type ScimOrg } from "./helpers";
import { testEnv } from "../../../support/tunables";

describe("SCIM: malformed and hostile input", function () {
  const stack = stackSuite(this, { resetModel: false });
  let org: ScimOrg;
  let userId: string;
  let limited: RunningServer | undefined;

  before(async () => {
    org = await scimOrganisation(stack, "hostile");
    const created = await scim(stack.baseUrl, org.scimToken, "POST", "/Users", {
      schemas: [USER_SCHEMA],
      userName: `kept@${org.domain}`,
      name: { formatted: "Kept" },
    });
    userId = created.body.id;
  });
  after(async () => {
    await Promise.race([limited?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await dropOrganisations(stack.server.deps.db, [org?.orgId]);
  });

  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    scim(stack.baseUrl, org.scimToken, method, path, body, headers);

  function expectScimError(answer: { status: number; body: { schemas?: string[]; status?: string; scimType?: string } }, status: number, scimType?: string) {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    expect(answer.body.schemas).to.deep.equal([ERROR_SCHEMA]);
    expect(answer.body.status).to.equal(String(status));
    if (scimType) expect(answer.body.scimType).to.equal(scimType);
  }

  it("refuses a missing, malformed, unknown or revoked token with a SCIM 401", async () => {
    expectScimError(await scim(stack.baseUrl, undefined, "GET", "/Users"), 401);
    expectScimError(await scim(stack.baseUrl, "scim_not-a-real-token", "GET", "/Users"), 401);
    expectScimError(await scim(stack.baseUrl, undefined, "GET", "/Users", undefined, { authorization: "Basic Zm9vOmJhcg==" }), 401);
    const jwt = await stack.server.deps.tokens.sign({ userId: org.adminId, orgId: org.orgId, role: "admin" });
    expectScimError(await scim(stack.baseUrl, jwt, "GET", "/Users"), 401);
    const spare = await scimOrganisation(stack, "revoked");
    try {
      expect((await scim(stack.baseUrl, spare.scimToken, "GET", "/ServiceProviderConfig")).status).to.equal(200);
      expect((await api(stack.baseUrl, "DELETE", "/api/v1/admin/scim/token", { token: spare.adminToken })).status).to.equal(204);
      expectScimError(await scim(stack.baseUrl, spare.scimToken, "GET", "/Users"), 401);
      expect((await api(stack.baseUrl, "DELETE", "/api/v1/admin/scim/token", { token: spare.adminToken })).status).to.equal(404);
    } finally {
      await dropOrganisations(stack.server.deps.db, [spare.orgId]);
    }
  });

  it("answers bad filters with 400 invalidFilter", async () => {
    for (const filter of [
      'userName eq "a" and (',
      'userName zz "x"',
      "userName eq",
      'password eq "x"',
      'meta.created gt "2020-01-01"',
      'not (userName eq "x")',
      'active eq "yes"',
      'name.familyName eq "x"',
    ]) {
      expectScimError(await call("GET", `/Users?filter=${encodeURIComponent(filter)}`), 400, "invalidFilter");
    }
    const sane = await call("GET", `/Users?filter=${encodeURIComponent(`USERNAME Eq "KEPT@${org.domain}" or id eq "not-a-uuid"`)}`);
    expect(sane.body.totalResults, "attribute names and eq are case-insensitive; a non-uuid id matches nothing").to.equal(1);
    const like = await call("GET", `/Users?filter=${encodeURIComponent('userName sw "%"')}`);
    expect(like.body.totalResults, "LIKE wildcards are literal").to.equal(0);
  });

  it("answers malformed bodies, unknown paths and wrong types with 400 and keeps what is stored", async () => {
    expectScimError(await call("POST", "/Users", "{not json"), 400, "invalidSyntax");
    expectScimError(await call("POST", "/Users", "[]"), 400);
    expectScimError(await call("POST", "/Users", { schemas: [USER_SCHEMA], name: { formatted: "No userName" } }), 400);
    expectScimError(await call("POST", "/Users", { schemas: [USER_SCHEMA], userName: "not-an-email" }), 400, "invalidValue");
    expectScimError(await call("POST", "/Users", { schemas: [USER_SCHEMA], userName: `x@${org.domain}`, name: "flat" }), 400);
    expectScimError(
      await call("PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "bogus", value: 1 }] }),
      400,
      "invalidPath",
    );
    expectScimError(await call("PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: "explode", path: "active" }] }), 400);
    expectScimError(
      await call("PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: "maybe" }] }),
      400,
      "invalidValue",
    );
    expectScimError(await call("PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [] }), 400);
    expectScimError(await call("PATCH", `/Users/${userId}`, { schemas: ["urn:wrong"], Operations: [{ op: "replace", value: { active: false } }] }), 400);
    expectScimError(
      await call("PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { userName: "nope" } }] }),
      400,
      "invalidValue",
    );
    expectScimError(
      await call("POST", "/Groups", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
        displayName: "G",
        members: [{ value: "00000000-0000-0000-0000-000000000000" }],
      }),
      400,
      "invalidValue",
    );
    expectScimError(await call("POST", "/Users", { userName: `y@${org.domain}` }, { "content-type": "text/plain" }), 415);
    expectScimError(await call("POST", "/Users", JSON.stringify({ userName: `big@${org.domain}`, title: "x".repeat(1_100_000) })), 413);
    expectScimError(await call("GET", "/Users/not-a-uuid"), 404);
    expectScimError(await call("GET", "/Users/00000000-0000-0000-0000-000000000000"), 404);
    expectScimError(await call("GET", "/Bulk"), 404);
    expectScimError(await call("POST", "/Users/00000000-0000-0000-0000-000000000000"), 405);
    expectScimError(await call("POST", "/Users", { schemas: [USER_SCHEMA], userName: `kept@${org.domain}` }), 409, "uniqueness");
    expectScimError(await call("POST", "/Users", { schemas: [USER_SCHEMA], userName: "admin@example.com" }), 409, "uniqueness");
    const kept = await call("GET", `/Users/${userId}`);
    expect(kept.body).to.deep.include({ userName: `kept@${org.domain}`, active: true, displayName: "Kept" });
    // application/json is accepted too.
    const plain = await api(stack.baseUrl, "GET", "/scim/v2/Users?count=0", { token: org.scimToken });
    expect(plain.body, "the admin and the kept person").to.deep.include({ totalResults: 2, itemsPerPage: 0 });
  });

  it("pages with startIndex and count and serves the discovery documents", async () => {
    for (const n of [1, 2, 3]) await call("POST", "/Users", { schemas: [USER_SCHEMA], userName: `page${n}@${org.domain}` });
    const page = await call("GET", "/Users?startIndex=2&count=2");
    // The admin, the kept person and three more, oldest first.
    expect(page.body).to.deep.include({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((u: { userName: string }) => u.userName)).to.deep.equal([`kept@${org.domain}`, `page1@${org.domain}`]);
    const rest = await call("GET", "/Users?startIndex=5&count=2");
    expect(rest.body.Resources.map((u: { userName: string }) => u.userName)).to.deep.equal([`page3@${org.domain}`]);
    expect((await call("GET", "/Users?startIndex=-5&count=100000")).body).to.deep.include({ startIndex: 1, itemsPerPage: 5 });
    const config = await call("GET", "/ServiceProviderConfig");
    expect(config.body.patch.supported).to.equal(true);
    expect(config.body.filter).to.deep.include({ supported: true, maxResults: 200 });
    expect(config.body.bulk.supported).to.equal(false);
    expect((await call("GET", "/ResourceTypes")).body.Resources.map((r: { id: string }) => r.id)).to.deep.equal(["User", "Group"]);
    expect((await call("GET", "/Schemas")).body.Resources.map((s: { id: string }) => s.id)).to.include.members([
      USER_SCHEMA,
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
    ]);
    expect((await call("GET", `/Schemas/${USER_SCHEMA}`)).body.name).to.equal("User");
    expectScimError(await call("GET", "/ResourceTypes/Nope"), 404);
  });

  it("limits requests per token with a SCIM 429 and Retry-After", async () => {
    limited = await startServer(parseConfig(testEnv({ ...process.env, SCIM_RATE_LIMIT_PER_MINUTE: "3" })), { port: 0, host: "127.0.0.1" });
    const [spare, fresh] = await Promise.all([scimOrganisation(stack, "limited"), scimOrganisation(stack, "unlimited")]);
    try {
      for (let i = 0; i < 3; i += 1) expect((await scim(limited.url, spare.scimToken, "GET", "/Users")).status).to.equal(200);
      const refused = await scim(limited.url, spare.scimToken, "GET", "/Users");
      expectScimError(refused, 429);
      expect(Number(refused.headers.get("retry-after"))).to.be.within(1, 60);
      expect((await scim(limited.url, fresh.scimToken, "GET", "/Users")).status, "another token has its own window").to.equal(200);
    } finally {
      await dropOrganisations(stack.server.deps.db, [spare.orgId, fresh.orgId]);
    }
  });

  it("is in the OpenAPI document, with SCIM errors", async () => {
    const doc = (await api(stack.baseUrl, "GET", "/api/v1/openapi.json")).body;
    expect(doc.paths["/scim/v2/Users"].post.security).to.deep.equal([{ scimToken: [] }]);
    expect(doc.paths["/scim/v2/Users/{id}"].patch.responses["409"].content["application/scim+json"].schema.$ref).to.equal("#/components/schemas/ScimError");
    expect(Object.keys(doc.paths)).to.include.members([
      "/scim/v2/Groups/{id}",
      "/scim/v2/ServiceProviderConfig",
      "/api/v1/admin/scim",
      "/api/v1/admin/scim/token",
    ]);
  });
});
