/** Search terms from a question (workers/tutor/language.ts). */
import { expect } from "chai";

describe("searchTerms", () => {
  it("keeps accented words as written and accent-free, without stop words", async () => {
    const { searchTerms } = await import("../../../../workers/tutor/language");
    const terms = searchTerms("¿Cuál es el peso máximo de carga manual?");
    expect(terms).to.include.members(["maximo", "máximo", "peso", "carga", "manual"]);
    expect(terms).to.not.include("el");
  });
});
