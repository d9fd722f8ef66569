/** PageIndex module selection: reading the model's reply (workers/tutor/retrieval/page-index.ts). */
import { expect } from "chai";
import type { ModuleOutline } from "../../../../db/queries/learner";
import { parseModuleSelection } from "../../../../workers/tutor/retrieval/page-index";

describe("parseModuleSelection", () => {
  const modules: ModuleOutline[] = [1, 2, 3].map((position) => ({ id: `m${position}`, title: `Module ${position}`, summary: null, position }));
  const ids = (picked: ModuleOutline[]) => picked.map((m) => m.id);

  it("reads single numbers, lists and prose", () => {
    expect(ids(parseModuleSelection("2", modules))).to.deep.equal(["m2"]);
    expect(ids(parseModuleSelection("1, 3", modules))).to.deep.equal(["m1", "m3"]);
    expect(ids(parseModuleSelection("Modules 3 and 2", modules))).to.deep.equal(["m2", "m3"]);
    expect(ids(parseModuleSelection("Module 1.", modules))).to.deep.equal(["m1"]);
  });

  it('answers "all" (or todos) with every module', () => {
    expect(ids(parseModuleSelection("all", modules))).to.deep.equal(["m1", "m2", "m3"]);
    expect(ids(parseModuleSelection("Todos", modules))).to.deep.equal(["m1", "m2", "m3"]);
  });

  it("falls back to every module when the reply names no module that exists", () => {
    expect(ids(parseModuleSelection("", modules))).to.deep.equal(["m1", "m2", "m3"]);
    expect(ids(parseModuleSelection("7", modules))).to.deep.equal(["m1", "m2", "m3"]);
    expect(ids(parseModuleSelection("none of them", modules))).to.deep.equal(["m1", "m2", "m3"]);
    expect(ids(parseModuleSelection("2, 9", modules))).to.deep.equal(["m2"]);
  });
});
