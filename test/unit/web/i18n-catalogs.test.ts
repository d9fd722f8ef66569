/**
 * The pages' catalogs (web/src/lib/i18n/catalog): every language has every message English has
 * and no other, each message parses as ICU MessageFormat, and a translation uses the same
 * placeholders and markup tags as English (a `{name}` dropped or renamed would print the raw
 * brace, a lost tag a raw `<strong>`), with an `other` branch in each plural and select.
 */
import { type MessageFormatElement, parse, TYPE } from "@formatjs/icu-messageformat-parser";
import { expect } from "chai";
import { PAGE_LANGUAGES } from "../../../lib/page-language";
import { CATALOGS } from "../../../web/src/lib/i18n/catalog";
import { en } from "../../../web/src/lib/i18n/catalog/en";

interface Shape {
  arguments: Set<string>;
  tags: Set<string>;
  missingOther: string[];
}

function shapeOf(elements: MessageFormatElement[], shape: Shape = { arguments: new Set(), tags: new Set(), missingOther: [] }): Shape {
  for (const element of elements) {
    if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date || element.type === TYPE.time)
      shape.arguments.add(element.value);
    if (element.type === TYPE.tag) {
      shape.tags.add(element.value);
      shapeOf(element.children, shape);
    }
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      shape.arguments.add(element.value);
      if (!("other" in element.options)) shape.missingOther.push(element.value);
      for (const option of Object.values(element.options)) shapeOf(option.value, shape);
    }
  }
  return shape;
}

describe("web: the pages' catalogs", () => {
  const ids = Object.keys(en).sort();

  it("has a catalog for every page language", () => {
    expect(Object.keys(CATALOGS).sort()).to.deep.equal([...PAGE_LANGUAGES].sort());
  });

  for (const language of PAGE_LANGUAGES) {
    it(`${language}: every message English has, no other, each valid ICU with English's placeholders and tags`, () => {
      const catalog: Record<string, string> = CATALOGS[language];
      expect(Object.keys(catalog).sort(), "the same ids as English").to.deep.equal(ids);
      const problems: string[] = [];
      for (const id of ids) {
        const text = catalog[id]!;
        if (text.trim() === "") problems.push(`${id}: empty`);
        let shape: Shape;
        try {
          shape = shapeOf(parse(text));
        } catch (error) {
          problems.push(`${id}: does not parse (${(error as Error).message})`);
          continue;
        }
        const english = shapeOf(parse(en[id as keyof typeof en]));
        if ([...shape.arguments].sort().join() !== [...english.arguments].sort().join())
          problems.push(`${id}: placeholders {${[...shape.arguments].join(", ")}} instead of {${[...english.arguments].join(", ")}}`);
        if ([...shape.tags].sort().join() !== [...english.tags].sort().join()) problems.push(`${id}: tags <${[...shape.tags].join(", ")}>`);
        if (shape.missingOther.length > 0) problems.push(`${id}: no "other" branch for ${shape.missingOther.join(", ")}`);
      }
      expect(problems).to.deep.equal([]);
    });
  }

  it("is translated: outside names, codes and units, a language's message differs from English's", () => {
    // Words that are the same in several languages (Status, Tutor, SCIM…) are allowed; a catalog copied from English is not.
    for (const language of PAGE_LANGUAGES.filter((code) => code !== "en")) {
      const catalog: Record<string, string> = CATALOGS[language];
      const same = ids.filter((id) => catalog[id] === en[id as keyof typeof en] && en[id as keyof typeof en].includes(" "));
      expect(same.length, `${language}: ${same.join(", ")}`).to.be.lessThan(8);
    }
  });
});
