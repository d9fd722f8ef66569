/** PageIndex module selection: by the lesson text's evidence, and reading the model's reply (workers/tutor/retrieval/page-index.ts). */
import { expect } from "chai";
import type { LessonContent, ModuleOutline } from "../../../../../db/queries/learner";
import { likeliestModules, moduleByEvidence, parseModuleSelection } from "../../../../../workers/tutor/retrieval/page-index";
import { contentTermsOf } from "../../../../../workers/tutor/retrieval/question-terms";
import { relevanceOf } from "../../../../../workers/tutor/retrieval/relevance";

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

describe("moduleByEvidence and likeliestModules", () => {
  const modules: ModuleOutline[] = [
    { id: "m1", title: "The Refund Window", summary: "Counting the refund window.", position: 1 },
    { id: "m2", title: "Receipts and Exchanges", summary: "Proof of purchase.", position: 2 },
    { id: "m3", title: "Refunds and Exceptions", summary: "Items that cannot be returned.", position: 3 },
  ];
  const lesson = (module: ModuleOutline, title: string, content: string): LessonContent => ({
    id: `${module.id}-${title}`,
    title,
    content,
    module_id: module.id,
    module_title: module.title,
    module_position: module.position,
  });
  const lessons = [
    lesson(modules[0]!, "Counting the 30 days", "Start counting the day after the purchase; weekends count."),
    lesson(modules[1]!, "Exchanges", "Within 30 days an item can be exchanged for another size."),
    lesson(modules[2]!, "Card refunds", "Card refunds are processed within 5 business days."),
  ];
  const judge = (question: string) => {
    const terms = contentTermsOf(question);
    return relevanceOf(
      terms,
      terms.map(() => 1),
    );
  };

  it("decides when one module's text holds every term of the question and no other's does", () => {
    expect(moduleByEvidence(modules, lessons, judge("How do I count the 30 days?"))?.id).to.equal("m1");
    expect(moduleByEvidence(modules, lessons, judge("How are card refunds processed?"))?.id).to.equal("m3");
  });

  it("leaves the choice to the model when several modules hold it, none does, or the question names nothing", () => {
    expect(moduleByEvidence(modules, lessons, judge("Tell me about the 30 days")), "two modules").to.equal(null);
    expect(moduleByEvidence(modules, lessons, judge("Who signs the vault register?")), "none").to.equal(null);
    expect(moduleByEvidence(modules, lessons, judge("Can you explain this again?")), "no content terms").to.equal(null);
  });

  it("makes likeliest the modules holding the question, else those holding the most of its terms, else all of them", () => {
    const likeliest = (question: string) => likeliestModules(modules, lessons, judge(question)).map((m) => m.id);
    expect(likeliest("Tell me about the 30 days"), "both modules holding it").to.deep.equal(["m1", "m2"]);
    expect(likeliest("Can weekends be exchanged for another size?"), "none holds it all: the one holding most of it").to.deep.equal(["m2"]);
    expect(likeliest("Who signs the vault register?"), "nothing of it anywhere").to.deep.equal(["m1", "m2", "m3"]);
    expect(likeliest("Can you explain this again?"), "no content terms").to.deep.equal(["m1", "m2", "m3"]);
  });
});
