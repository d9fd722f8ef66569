/**
 * Finding an erased person in admins' chats (lib/person-mentions.ts): their full name as a whole
 * (word boundaries, any case, accents or not, any whitespace between its words), their id and
 * email; never a colleague who shares a first name or whose name merely starts the same; JSON
 * walked string by string; hostile text matched in linear time.
 */
import { expect } from "chai";
import { ERASED_MENTION, findPerson } from "../../../lib/person-mentions";
import { expectNoLongBlock } from "../../support/event-loop-block";

const id = "0b5b2c1e-1111-4a2b-9c3d-123456789abc";
const finder = findPerson({ ids: [id], emails: ["ana.garcia@example.com"], names: ["Ana García López", "Ana García"] });

describe("person mentions", () => {
  it("replaces the full name in any case, with or without accents, across whitespace", () => {
    expect(finder.scrub("Ana García López is late")).to.equal(`${ERASED_MENTION} is late`);
    expect(finder.scrub("ANA GARCIA LOPEZ is late")).to.equal(`${ERASED_MENTION} is late`);
    expect(finder.scrub("ana  garcía\nlópez, again")).to.equal(`${ERASED_MENTION}, again`);
    expect(finder.scrub("«Ana García» said")).to.equal(`«${ERASED_MENTION}» said`);
    // Decomposed input (a combining accent) reads the same.
    expect(finder.scrub("Ana Garci\u0301a.")).to.equal(`${ERASED_MENTION}.`);
  });

  it("never touches a namesake: a shared first name, a longer word, another surname", () => {
    for (const text of ["Ana Torres is here", "Ana Garcíasson", "Mariana García", "Ana Garc", "ana_garcía"]) expect(finder.scrub(text)).to.equal(text);
    expect(finder.mentions("Ana Torres")).to.equal(false);
  });

  it("replaces the id and email anywhere, and walks JSON keys and values", () => {
    expect(finder.scrub(`user ${id.toUpperCase()} <ANA.GARCIA@example.com>`)).to.equal(`user ${ERASED_MENTION} <${ERASED_MENTION}>`);
    const scrubbed = finder.scrubJson({ tool_calls: [{ name: "get_employee_detail", arguments: { employee_id: id, n: 1, ok: true } }], [id]: null });
    expect(scrubbed.changed).to.equal(true);
    expect(scrubbed.value).to.deep.equal({
      tool_calls: [{ name: "get_employee_detail", arguments: { employee_id: ERASED_MENTION, n: 1, ok: true } }],
      [ERASED_MENTION]: null,
    });
    const untouched = { a: ["Ana Torres", 3, null] };
    expect(finder.scrubJson(untouched)).to.deep.equal({ value: untouched, changed: false });
  });

  it("finds an address or id only whole, and never a one-word name alone", () => {
    const ana = findPerson({ ids: [], emails: ["ana@corp.com"], names: ["Ana"] });
    expect(ana.scrub("mariana@corp.com and ana@corp.com.")).to.equal(`mariana@corp.com and ${ERASED_MENTION}.`);
    expect(ana.scrub("Ana Ruiz asked; ask Ana")).to.equal("Ana Ruiz asked; ask Ana");
  });

  it("keeps text without a mention byte for byte, and ignores one-letter names", () => {
    const text = "Cafe\u0301 notes"; // not NFC: left as it was
    expect(finder.scrub(text)).to.equal(text);
    expect(findPerson({ ids: [], emails: [], names: ["A"] }).scrub("A plan")).to.equal("A plan");
  });

  it("matches hostile text without blocking the event loop", async () => {
    const hostile = `${"Ana ".repeat(50_000)}${"a\u0301".repeat(50_000)} Ana García`;
    await expectNoLongBlock("scrubbing 200 kB of near-misses", async () => {
      expect(finder.scrub(hostile).endsWith(ERASED_MENTION)).to.equal(true);
    });
  });
});
