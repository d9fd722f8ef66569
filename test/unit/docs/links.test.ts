/** The README stays short, and no link in it or in docs/ points at a file or heading that is not there. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "");
  const headings = [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]!);
  return new Set(
    headings.map((heading) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );
}

describe("documentation links", () => {
  it("keeps the README to a newcomer's length", () => {
    const lines = readFileSync(join(root, "README.md"), "utf8").split("\n").length;
    expect(lines).to.be.at.most(170);
  });

  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const markdown = readFileSync(join(root, page), "utf8");
      const broken: string[] = [];
      for (const [, target] of markdown.replace(/```[\s\S]*?```/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [file, anchor] = target!.split("#") as [string, string | undefined];
        const path = file === "" ? join(root, page) : resolve(dirname(join(root, page)), file);
        if (!existsSync(path)) {
          broken.push(`${target} (no such file)`);
          continue;
        }
        if (anchor && path.endsWith(".md") && !anchorsOf(readFileSync(path, "utf8")).has(anchor)) broken.push(`${target} (no such heading)`);
      }
      expect(broken).to.deep.equal([]);
    });
  }
});
