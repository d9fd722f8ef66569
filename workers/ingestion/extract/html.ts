/**
 * HTML (and DOCX, which mammoth turns into HTML): sections at h1–h3, block elements as lines and
 * paragraphs, lists as "- " items and table rows as "cell | cell", so structure survives as text.
 */
import { type HTMLElement, type Node, NodeType, parse } from "node-html-parser";
import type { DocumentFormat } from "../../../lib/document-formats";
import { decodeUtf8 } from "./text";
import { buildDocument, type ExtractedDocument, type ExtractedSection } from "./types";

const SKIPPED = new Set(["script", "style", "noscript", "template", "head", "svg", "iframe", "object", "button", "select"]);
const SECTION_HEADINGS = new Set(["h1", "h2", "h3"]);
const PARAGRAPH_BLOCKS = new Set([
  "p", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "section", "article", "main",
  "header", "footer", "aside", "nav", "address", "details", "fieldset", "form", "hr",
]);
const LINE_BLOCKS = new Set(["div", "li", "tr", "dt", "dd", "caption", "figcaption", "summary", "br", "thead", "tbody", "tfoot"]);

/** Accumulates text line by line; `pre` content keeps its own whitespace, everything else collapses. */
class TextBuilder {
  private lines: string[] = [];
  private line = "";

  inline(text: string, preformatted: boolean): void {
    if (preformatted) {
      const [first = "", ...rest] = text.split("\n");
      this.line += first;
      for (const next of rest) {
        this.breakLine();
        this.line = next;
      }
      return;
    }
    const collapsed = text.replace(/\s+/g, " ");
    this.line += this.line === "" || this.line.endsWith(" ") ? collapsed.trimStart() : collapsed;
  }

  breakLine(): void {
    if (this.line.trim() !== "") this.lines.push(this.line.trimEnd());
    this.line = "";
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

export function htmlToSections(html: string): ExtractedSection[] {
  // node-html-parser keeps a doctype or XML prolog as a text node; they are not content.
  const body = html.replace(/<!doctype[^>]*>|<\?xml[^>]*\?>/gi, "");
  const root = parse(body, { blockTextElements: { script: false, style: false, noscript: false } });
  const sections: ExtractedSection[] = [];
  const text = new TextBuilder();
  let heading: string | null = null;
  const closeSection = () => sections.push({ heading, text: text.take(), pageStart: null, pageEnd: null });

  const walk = (node: Node, preformatted: boolean): void => {
    if (node.nodeType === NodeType.TEXT_NODE) return text.inline(node.text, preformatted);
    if (node.nodeType !== NodeType.ELEMENT_NODE) return;
    const element = node as HTMLElement;
    const tag = element.tagName?.toLowerCase() ?? "";
    if (SKIPPED.has(tag)) return;
    if (SECTION_HEADINGS.has(tag)) {
      closeSection();
      heading = element.text.replace(/\s+/g, " ").trim() || null;
      return;
    }
    const paragraph = PARAGRAPH_BLOCKS.has(tag);
    const line = LINE_BLOCKS.has(tag);
    if (paragraph) text.breakParagraph();
    else if (line) text.breakLine();
    if (tag === "li") text.inline("- ", true);
    if ((tag === "td" || tag === "th") && element.previousElementSibling) text.inline(" | ", true);
    for (const child of element.childNodes) walk(child, preformatted || tag === "pre");
    if (paragraph) text.breakParagraph();
    else if (line) text.breakLine();
  };

  walk(root, false);
  closeSection();
  return sections;
}

export function extractHtmlString(html: string, format: DocumentFormat = "html"): ExtractedDocument {
  return buildDocument(format, htmlToSections(html));
}

export function extractHtml(bytes: Buffer): ExtractedDocument {
  return extractHtmlString(decodeUtf8(bytes));
}
