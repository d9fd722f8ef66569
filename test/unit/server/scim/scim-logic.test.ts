/**
 * The SCIM logic without I/O: filters as the data layer's conditions (and what is refused),
 * Entra's string booleans, PATCH in Okta's and Entra's forms on a resource, and how a User's
 * attributes become a person's fields under POST, PUT and PATCH.
 */
import { expect } from "chai";
import type { ScimUserRow } from "../../../../db/queries/scim-users";
import { parseScimFilter } from "../../../../server/scim/filter";
import { SCIMMY } from "../../../../server/scim/library";
import { attributesOf, pageOf } from "../../../../server/scim/listing";
import { applyPatch, normaliseStringBooleans } from "../../../../server/scim/patch";
import { fromScimUser, parseScimUser, toScimUser } from "../../../../server/scim/user-resource";

const USERS = { userName: {}, externalId: {}, "emails.value": {}, active: { boolean: true }, id: {} };
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

const row: ScimUserRow = {
  id: "6f1d7f0e-4b7a-4a3e-9d55-8d1f7a3b2c10",
  org_id: "0c7f3a8e-2a9b-4f4d-8e4c-1b2d3e4f5a6b",
  email: "ana@example.com",
  name: "Ana Ruiz",
  given_name: "Ana",
  family_name: "Ruiz",
  external_id: "ext-1",
  is_active: true,
  job_title: null,
  department: "Sales",
  locale: "es",
  role: "employee",
  created_at: new Date("2026-12-01T00:00:00Z"),
};

function scimErrorOf(run: () => unknown): { status: number; scimType: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) return { status: error.status, scimType: error.scimType };
    throw error;
  }
  throw new Error("expected a SCIM error");
}

describe("SCIM logic", () => {
  it("turns filters into OR-ed groups of AND-ed conditions, case-insensitive in names and operators", () => {
    expect(parseScimFilter('userName eq "a@b.c"', USERS)).to.deep.equal([[{ attribute: "userName", op: "eq", value: "a@b.c" }]]);
    expect(parseScimFilter('USERNAME Eq "x" or (externalId eq "y" and active eq false)', USERS)).to.deep.equal([
      [{ attribute: "userName", op: "eq", value: "x" }],
      [
        { attribute: "externalId", op: "eq", value: "y" },
        { attribute: "active", op: "eq", value: false },
      ],
    ]);
    expect(parseScimFilter('emails[value eq "x"]', USERS)).to.deep.equal([[{ attribute: "emails.value", op: "eq", value: "x" }]]);
    expect(parseScimFilter("urn:ietf:params:scim:schemas:core:2.0:User:userName pr", USERS)).to.deep.equal([[{ attribute: "userName", op: "pr" }]]);
    expect(parseScimFilter(undefined, USERS)).to.deep.equal([]);
  });

  it("refuses what it cannot run with 400 invalidFilter", () => {
    for (const filter of [
      'userName eq "a" and (',
      "userName eq",
      'title eq "x"',
      'not (userName eq "x")',
      'userName gt "a"',
      'active eq "true"',
      "userName eq true",
    ]) {
      expect(
        scimErrorOf(() => parseScimFilter(filter, USERS)),
        filter,
      ).to.deep.equal({ status: 400, scimType: "invalidFilter" });
    }
  });

  it("reads Entra's string booleans as booleans where the schema has a boolean, and nowhere else", () => {
    expect(normaliseStringBooleans(SCIMMY.Schemas.User, { active: "False", title: "True" })).to.deep.equal({ active: false, title: "True" });
  });

  it("applies Okta's and Entra's PATCH forms", async () => {
    const current = toScimUser(row, "https://h/scim/v2/Users");
    const okta = await applyPatch(SCIMMY.Schemas.User, current, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] });
    expect(fromScimUser(okta!, "patch", row).is_active).to.equal(false);
    const entra = await applyPatch(SCIMMY.Schemas.User, current, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: "active", value: "False" },
        { op: "Replace", value: { "name.givenName": "Eva" } },
        { op: "Remove", path: `${ENTERPRISE}:department` },
      ],
    });
    expect(fromScimUser(entra!, "patch", row)).to.include({ is_active: false, name: "Eva Ruiz", given_name: "Eva", department: null });
    const unchanged = await applyPatch(SCIMMY.Schemas.User, current, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: true }] });
    expect(unchanged).to.equal(undefined);
  });

  it("maps POST and PUT bodies: PUT keeps what it does not assert, userName must be an email", () => {
    const created = fromScimUser(parseScimUser({ userName: "Ana@Example.com", name: { givenName: "Ana", familyName: "Ruiz" }, locale: "en-US" }), "create");
    expect(created).to.include({ email: "ana@example.com", name: "Ana Ruiz", is_active: true, external_id: null, department: null, locale: "en" });
    const put = fromScimUser(parseScimUser({ userName: "ana@example.com", name: { givenName: "Ana", familyName: "Ruiz" } }), "put", row);
    expect(put).to.include({ name: "Ana Ruiz", external_id: "ext-1", is_active: true });
    expect(put.department, "not asserted: kept").to.equal(undefined);
    expect(scimErrorOf(() => fromScimUser(parseScimUser({ userName: "ana" }), "create"))).to.deep.equal({ status: 400, scimType: "invalidValue" });
    expect(scimErrorOf(() => parseScimUser({ name: { formatted: "x" } })).status).to.equal(400);
  });

  it("pages and selects attributes within bounds", () => {
    expect(pageOf({ startIndex: 0, count: 5000 })).to.deep.equal({ startIndex: 1, offset: 0, limit: 200 });
    expect(pageOf({})).to.deep.equal({ startIndex: 1, offset: 0, limit: 100 });
    const selection = attributesOf({ excludedAttributes: "members" });
    expect([selection.includes("members"), selection.includes("displayName")]).to.deep.equal([false, true]);
    expect(attributesOf({ attributes: "userName" }).includes("emails")).to.equal(false);
  });
});
