/**
 * No word a reader sees is left out of the pages' catalogs: scripts/i18n/untranslated.ts over
 * web/src finds nothing, and on small sources it finds what it must (JSX text, a visible
 * attribute's literal, a sentence given to `confirm` or kept in state) and leaves alone what is
 * for the machine (message ids, class names, paths, comparisons, the log).
 */
import { expect } from "chai";
import { findUntranslated, scanSource } from "../../../scripts/i18n/untranslated";

const lines = (source: string, file = "web/src/Example.tsx") => scanSource(file, source).map((finding) => `${finding.line}: ${finding.text}`);

describe("web: no untranslated words in the pages", () => {
  it("finds none in web/src (run `node --import tsx scripts/i18n/untranslated.ts` for file:line)", () => {
    const findings = findUntranslated().map((finding) => `${finding.file}:${finding.line}: ${finding.text}`);
    expect(findings).to.deep.equal([]);
  });

  it("names JSX text, visible attributes and prose literals, with their line", () => {
    const source = [
      'import { t } from "../lib/i18n";',
      "export function Example({ busy }: { busy: boolean }) {",
      '  const say = () => confirm("Delete this document for good?");',
      "  return (",
      '    <form aria-label="Upload form" class="upload-form wide">',
      '      <input placeholder="Type a name" name="title" type="text" />',
      '      <button title={busy ? "Sending now" : t("common.send")}>Send it</button>',
      '      <Choice label="Role" value="admin" />',
      '      {busy && "Please wait a moment"}',
      "    </form>",
      "  );",
      "}",
    ].join("\n");
    expect(lines(source)).to.deep.equal([
      "3: Delete this document for good?",
      "5: Upload form",
      "6: Type a name",
      "7: Sending now",
      "7: Send it",
      "8: Role",
      "9: Please wait a moment",
    ]);
  });

  it("leaves alone message ids, class lists, paths, comparisons, the log and lines marked i18n-ignore", () => {
    const source = [
      'import { t } from "../lib/i18n";',
      'const path = "/api/v1/admin/people";',
      "export function Example({ status }: { status: string }) {",
      '  console.warn("Something for the developer only");',
      '  if (status === "Waiting for the worker") return null;',
      '  const brand = "skillnet tutor"; // i18n-ignore: the product name',
      "  return (",
      '    <p class="notice muted wide" data-state="still running" aria-live="polite">',
      '      {t("common.loading")} {t(status === "done" ? "common.done" : "common.more")}',
      "    </p>",
      "  );",
      "}",
    ].join("\n");
    expect(lines(source)).to.deep.equal([]);
  });

  it("reads plain .ts modules too (sentences built outside components)", () => {
    const source = 'export const wait = (s: number) => `Try again in ${s} seconds.`;\nexport const code = "RATE_LIMITED";';
    expect(lines(source, "web/src/lib/example.ts")).to.deep.equal(["1: Try again in seconds."]);
  });
});
