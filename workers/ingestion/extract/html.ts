/**
 * HTML (and DOCX, which mammoth turns into HTML): sections at every heading h1–h6 (so a chunk
 * and its citation name the nearest heading, however deep the page nests it), block elements as lines and
 * paragraphs, lists as "- " items and table rows as "cell | cell", so structure survives as text.
 * One pass over a linear tokenizer with an explicit element stack: no recursion, so 10,000 (or a
 * million) nested elements cost time in proportion to their size and never overflow the stack.
 */
import type { DocumentFormat } from "../../../lib/document-formats";
import { scanMarkup } from "./markup-scanner";
import { decodeUtf8 } from "./text";
import {
  buildDocument,
  DEFAULT_EXTRACTION_LIMITS,
  type ExtractedDocument,
  type ExtractedSection,
  type ExtractionLimits,
  MAX_HEADING_CHARS,
  textTooLarge,
} from "./types";

const SKIPPED = new Set(["script", "style", "noscript", "template", "head", "svg", "iframe", "object", "button", "select", "title"]);
/**
 * Page furniture, not content: `<nav>`, `role="navigation"`, and the classes documentation
 * generators give their "Next: … Previous: … Up:" bars (Texinfo `header`, DocBook `navheader`/
 * `navfooter`). Left in, every page of a manual starts with a chunk of links that matches
 * questions about its neighbours.
 */
const NAVIGATION_CLASSES = new Set(["header", "nav-panel", "navheader", "navfooter", "navigation", "breadcrumb", "breadcrumbs"]);

function isNavigation(tag: string, attributes: Record<string, string>): boolean {
  if (tag === "nav" || attributes.role === "navigation") return true;
  return (attributes.class ?? "").split(/\s+/).some((name) => NAVIGATION_CLASSES.has(name));
}

const SECTION_HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
const PARAGRAPH_BLOCKS = new Set([
  "p",
  "blockquote",
  "pre",
  "table",
  "ul",
  "ol",
  "dl",
  "figure",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "nav",
  "address",
  "details",
  "fieldset",
  "form",
  "hr",
]);
const LINE_BLOCKS = new Set(["div", "li", "tr", "dt", "dd", "caption", "figcaption", "summary", "br", "thead", "tbody", "tfoot"]);

/** Start tags that end the open element named in their set first (HTML's implied end tags). */
const BLOCKS_CLOSING_P = [
  "p",
  "div",
  "ul",
  "ol",
  "dl",
  "table",
  "pre",
  "blockquote",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "section",
  "article",
  "header",
  "footer",
  "aside",
  "nav",
  "figure",
  "form",
  "hr",
  "main",
  "address",
  "details",
  "fieldset",
];
const IMPLIED_END: Record<string, Set<string>> = {
  li: new Set(["li", "p"]),
  dt: new Set(["dt", "dd", "p"]),
  dd: new Set(["dt", "dd", "p"]),
  td: new Set(["td", "th"]),
  th: new Set(["td", "th"]),
  tr: new Set(["td", "th", "tr"]),
  ...Object.fromEntries(BLOCKS_CLOSING_P.map((tag) => [tag, new Set(["p", ...(/^h[1-6]$/.test(tag) ? ["h1", "h2", "h3", "h4", "h5", "h6"] : [])])])),
};

/** Accumulates text line by line; `pre` content keeps its own whitespace, everything else collapses. */
class TextBuilder {
  private lines: string[] = [];
  private parts: string[] = [];
  private lineHasText = false;
  private endsWithSpace = true;
  private length = 0;

  constructor(private readonly limits: ExtractionLimits) {}

  inline(text: string, preformatted: boolean): void {
    if (preformatted) {
      const [first = "", ...rest] = text.split("\n");
      this.append(first);
      for (const next of rest) {
        this.breakLine();
        this.append(next);
      }
      return;
    }
    let collapsed = text.replace(/\s+/g, " ");
    if (this.endsWithSpace) collapsed = collapsed.trimStart();
    this.append(collapsed);
  }

  private append(piece: string): void {
    if (piece === "") return;
    this.length += piece.length;
    if (this.length > this.limits.maxTextChars) throw textTooLarge(this.limits);
    this.parts.push(piece);
    if (piece.trim() !== "") this.lineHasText = true;
    this.endsWithSpace = piece.endsWith(" ");
  }

  breakLine(): void {
    if (this.lineHasText) this.lines.push(this.parts.join("").trimEnd());
    this.parts = [];
    this.lineHasText = false;
    this.endsWithSpace = true;
  }

  breakParagraph(): void {
    this.breakLine();
    if (this.lines.length > 0 && this.lines.at(-1) !== "") this.lines.push("");
  }

  take(): string {
    this.breakLine();
    return this.lines.splice(0).join("\n");
  }
}

interface OpenElement {
  tag: string;
  /** Whether this element started a skipped region (SKIPPED tags, navigation). */
  skips: boolean;
  /** Element children opened so far: a cell after another is written " | cell". */
  elementChildren: number;
}

/** The page's sections and its own title: `<title>` in the head, else the first h1. */
export function readHtml(html: string, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): { sections: ExtractedSection[]; title: string | null } {
  const sections: ExtractedSection[] = [];
  /** Text of the head's `<title>` while it is read; the head is otherwise skipped. */
  let titleText: string | null = null;
  let headTitle: string | null = null;
  let firstH1: string | null = null;
  const text = new TextBuilder(limits);
  let heading: string | null = null;
  const closeSection = () => sections.push({ heading, text: text.take(), pageStart: null, pageEnd: null });

  const stack: OpenElement[] = [{ tag: "#root", elementChildren: 0, skips: false }];
  /** How many of each tag are open, so a stray end tag is ignored without searching the stack. */
  const openCount = new Map<string, number>();
  let skippedDepth = 0;
  let preDepth = 0;
  /** Text of the h1–h3 being read, or null outside one. */
  let headingText: string | null = null;

  const pop = (): void => {
    const { tag, skips } = stack.pop()!;
    openCount.set(tag, openCount.get(tag)! - 1);
    if (tag === "title" && titleText !== null) {
      headTitle = titleText.replace(/\s+/g, " ").trim() || null;
      titleText = null;
    }
    if (skippedDepth > 0) {
      if (skips) skippedDepth--;
      return;
    }
    if (tag === "pre") preDepth--;
    if (SECTION_HEADINGS.has(tag) && headingText !== null) {
      closeSection();
      heading = headingText.trim() || null;
      if (tag === "h1" && firstH1 === null) firstH1 = heading;
      headingText = null;
    } else if (PARAGRAPH_BLOCKS.has(tag)) text.breakParagraph();
    else if (LINE_BLOCKS.has(tag)) text.breakLine();
  };

  scanMarkup(
    html,
    {
      open(tag, attributes) {
        const implied = IMPLIED_END[tag];
        while (implied && stack.length > 1 && implied.has(stack.at(-1)!.tag)) pop();
        const parent = stack.at(-1)!;
        const previousSibling = parent.elementChildren++ > 0;
        const skips = SKIPPED.has(tag) || isNavigation(tag, attributes);
        stack.push({ tag, elementChildren: 0, skips });
        openCount.set(tag, (openCount.get(tag) ?? 0) + 1);
        if (tag === "title" && headTitle === null && (openCount.get("head") || !openCount.get("body"))) titleText = "";
        if (skippedDepth > 0 || skips) {
          if (skips) skippedDepth++;
          return;
        }
        if (tag === "pre") preDepth++;
        if (headingText !== null) return;
        if (SECTION_HEADINGS.has(tag)) headingText = "";
        else if (PARAGRAPH_BLOCKS.has(tag)) text.breakParagraph();
        else if (LINE_BLOCKS.has(tag)) text.breakLine();
        if (tag === "li") text.inline("- ", true);
        if ((tag === "td" || tag === "th") && previousSibling) text.inline(" | ", true);
      },
      close(tag) {
        if (!openCount.get(tag)) return;
        while (stack.length > 1) {
          const top = stack.at(-1)!.tag;
          pop();
          if (top === tag) break;
        }
      },
      text(piece) {
        if (titleText !== null && titleText.length < MAX_HEADING_CHARS * 2) titleText += piece;
        if (skippedDepth > 0) return;
        if (headingText !== null) {
          if (headingText.length < MAX_HEADING_CHARS * 2) headingText += piece.replace(/\s+/g, " ");
          return;
        }
        text.inline(piece, preDepth > 0);
      },
    },
    { xml: false },
  );
  while (stack.length > 1) pop();
  closeSection();
  return { sections, title: headTitle ?? firstH1 };
}

/** `title` (DOCX core properties) wins over what the HTML itself names. */
export function extractHtmlString(
  html: string,
  format: DocumentFormat = "html",
  limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS,
  title: string | null = null,
): ExtractedDocument {
  const read = readHtml(html, limits);
  return buildDocument(format, read.sections, null, undefined, limits, title ?? read.title);
}

export function extractHtml(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): ExtractedDocument {
  return extractHtmlString(decodeUtf8(bytes), "html", limits);
}
