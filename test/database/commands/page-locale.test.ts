/**
 * The language of a person's pages (users.page_locale): their own choice in the page is saved
 * with one audit row and outlasts what their identity provider (the `locale` claim at sign-in) or
 * SCIM (`preferredLanguage`) state later; until they choose, those statements set it. A choice
 * names a person of the caller's organisation only: the same id under another organisation
 * changes nothing.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { choosePageLanguage } from "../../../commands/page-locale";
import { createScimUser, updateScimUser } from "../../../commands/scim-users";
import { signInLinkedPerson } from "../../../commands/sign-in-people";
import { commandSuite, freshPerson } from "./helpers";

describe("page language: the person's choice, and what the identity system states", function () {
  const lane = commandSuite(this);
  const db = () => lane.db;
  const languageOf = async (id: string) => db()("users").where({ id }).first("locale", "page_locale", "page_locale_chosen_at");
  const actor = { tokenId: randomUUID(), hint: "…test" };

  it("saves a choice with one person.page_language_changed row, and none when nothing changes", async () => {
    const person = await freshPerson(lane);
    expect(await choosePageLanguage(lane.deps, { orgId: lane.orgId, userId: person.id, pageLocale: "de" })).to.equal(true);
    expect(await choosePageLanguage(lane.deps, { orgId: lane.orgId, userId: person.id, pageLocale: "de" })).to.equal(true);
    const row = await languageOf(person.id);
    expect(row.page_locale).to.equal("de");
    expect(row.page_locale_chosen_at).to.be.an.instanceOf(Date);
    // The tutor's fallback language is another fact: the pages' choice leaves it alone.
    expect(row.locale).to.equal("en");
    const audit = await db()("audit_log").where({ org_id: lane.orgId, target_id: person.id, action: "person.page_language_changed" }).select("before", "after");
    expect(audit).to.deep.equal([{ before: { page_locale: null }, after: { page_locale: "de" } }]);
    // Null forgets the choice: the browser's language applies again, and providers may state one.
    await choosePageLanguage(lane.deps, { orgId: lane.orgId, userId: person.id, pageLocale: null });
    expect(await languageOf(person.id)).to.include({ page_locale: null, page_locale_chosen_at: null });
  });

  it("lets the identity provider's locale claim set the pages' language until the person chooses, never after", async () => {
    const person = await freshPerson(lane);
    const signIn = (locale: string) => signInLinkedPerson(lane.deps, { orgId: lane.orgId, userId: person.id, linkId: randomUUID(), profile: { locale } });
    await signIn("fr");
    expect(await languageOf(person.id)).to.include({ locale: "fr", page_locale: "fr" });
    await choosePageLanguage(lane.deps, { orgId: lane.orgId, userId: person.id, pageLocale: "it" });
    await signIn("es");
    // The provider still says what the tutor falls back to; the person's choice of pages stands.
    expect(await languageOf(person.id)).to.include({ locale: "es", page_locale: "it" });
  });

  it("lets SCIM's preferredLanguage set it on creation and update, but not over the person's choice", async () => {
    const email = `scim-${randomUUID().slice(0, 8)}@example.com`;
    const fields = { email, name: "Scim Person", given_name: null, family_name: null, external_id: null, is_active: true };
    const created = await createScimUser(lane.deps, lane.orgId, { ...fields, locale: "pt" }, actor);
    expect(await languageOf(created.id)).to.include({ locale: "pt", page_locale: "pt" });
    await updateScimUser(lane.deps, lane.orgId, created.id, async () => ({ ...fields, locale: "de" }), actor);
    expect(await languageOf(created.id)).to.include({ locale: "de", page_locale: "de" });
    await choosePageLanguage(lane.deps, { orgId: lane.orgId, userId: created.id, pageLocale: "fr" });
    await updateScimUser(lane.deps, lane.orgId, created.id, async () => ({ ...fields, locale: "es" }), actor);
    expect(await languageOf(created.id)).to.include({ locale: "es", page_locale: "fr" });
  });

  it("changes nothing for a person of another organisation named by id", async () => {
    const other = await lane.build.buildOrg({ name: "Other Ltd" });
    const stranger = await lane.build.buildPerson(other.id, { email: `stranger-${randomUUID().slice(0, 8)}@example.com`, name: "Stranger" });
    expect(await choosePageLanguage(lane.deps, { orgId: lane.orgId, userId: stranger.id, pageLocale: "de" })).to.equal(false);
    expect(await languageOf(stranger.id)).to.include({ page_locale: null });
    expect(await db()("audit_log").where({ target_id: stranger.id, action: "person.page_language_changed" })).to.have.length(0);
  });
});
