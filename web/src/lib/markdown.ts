/**
 * Model answers and admin text are Markdown from an untrusted author (a model that may repeat
 * whatever a document said). They become DOM nodes in three guarded steps: marked parses with raw
 * HTML escaped (so `<img onerror>` shows as text), DOMPurify keeps only an allow-list of plain
 * formatting tags and safe link targets, and `[n]` markers turn into links to the numbered
 * citation list. Nothing here hands a string to innerHTML.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";

const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // Raw HTML in an answer is text the model wrote, not markup for us to run.
    html: ({ text }) => escapeHtml(text),
    // Images would fetch from anywhere (a tracker, or /x answering 404); show their alt text as a link instead.
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
  },
});

const ALLOWED_TAGS = [
  "p",
  "br",
  "strong",
  "em",
  "del",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "a",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
];
const SAFE_LINK = /^(https?:|mailto:|#)/i;

const purifier = DOMPurify();
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName !== "A") return;
  const href = node.getAttribute("href") ?? "";
  if (!SAFE_LINK.test(href)) {
    node.removeAttribute("href");
    return;
  }
  if (!href.startsWith("#")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

export interface CitationLinking {
  /** Indices the answer may link to (the citations list); other `[n]` stay as text. */
  indices: Set<number>;
  /** The id of the list item for citation `n`. */
  anchorFor: (index: number) => string;
}

const MARKER = /\[(\d{1,3})\]/g;

/** Replaces `[n]` in text nodes (outside code and links) with links to the citation list. */
function linkCitations(root: Node, linking: CitationLinking): void {
  const walker = root.ownerDocument!.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent?.closest("a, code, pre")) continue;
    if (MARKER.test(node.nodeValue ?? "")) texts.push(node as Text);
    MARKER.lastIndex = 0;
  }
  for (const text of texts) {
    const value = text.nodeValue ?? "";
    const fragment = text.ownerDocument.createDocumentFragment();
    let last = 0;
    for (const match of value.matchAll(MARKER)) {
      const index = Number(match[1]);
      if (!linking.indices.has(index)) continue;
      fragment.append(value.slice(last, match.index));
      const link = text.ownerDocument.createElement("a");
      link.href = `#${linking.anchorFor(index)}`;
      link.className = "cite-marker";
      link.textContent = match[0];
      link.setAttribute("aria-label", `source ${index}`);
      fragment.append(link);
      last = match.index + match[0].length;
    }
    fragment.append(value.slice(last));
    text.replaceWith(fragment);
  }
}

/** Safe DOM for a Markdown text, ready to append. */
export function renderMarkdown(source: string, linking?: CitationLinking): DocumentFragment {
  const html = marked.parse(source) as string;
  const fragment = purifier.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR: ["href", "title"], RETURN_DOM_FRAGMENT: true }) as DocumentFragment;
  if (linking && linking.indices.size > 0) linkCitations(fragment, linking);
  return fragment;
}
