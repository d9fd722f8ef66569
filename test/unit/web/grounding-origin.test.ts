/**
 * Whose material the answer's badge and source list name: the employee's own file only when the
 * answer stands on attached files alone, both when it mixes them with company material, the
 * company's otherwise; what it cites decides over what it was given.
 */
import { expect } from "chai";
import { groundingOrigin } from "../../../web/src/lib/grounding-origin";

const attachment = { sourceType: "attachment" as const };
const chunk = { sourceType: "document_chunk" as const };
const lesson = { sourceType: "lesson" as const };

describe("web/lib/grounding-origin: the employee's file or the company's material", () => {
  it("names the file when every citation is an attachment, both when mixed, the company otherwise", () => {
    expect(groundingOrigin([attachment, attachment], [attachment, chunk])).to.equal("file");
    expect(groundingOrigin([attachment, lesson], [attachment, lesson])).to.equal("mixed");
    expect(groundingOrigin([chunk], [attachment, chunk]), "given a file but citing only company material").to.equal("company");
    expect(groundingOrigin([lesson, chunk], [])).to.equal("company");
  });

  it("judges an answer that cites nothing (yet) by what it was given", () => {
    expect(groundingOrigin([], [attachment])).to.equal("file");
    expect(groundingOrigin([], [attachment, { sourceType: "progress" as const }])).to.equal("mixed");
    expect(groundingOrigin([], [chunk])).to.equal("company");
    expect(groundingOrigin([], []), "nothing at all").to.equal("company");
  });
});
