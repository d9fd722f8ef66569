/**
 * Markdown: a section at every ATX heading, named by its heading path ("Timers > Class: Timeout"),
 * so every chunking strategy keeps the nearest heading for citations. HTML comments (build
 * markers such as `<!-- YAML added: v16 -->`) are not prose and are dropped. The document's title
 * is its first `#` heading (a file that has none is known by its name).
 */
import { decodeUtf8 } from "./text";
import { buildDocument, DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, type ExtractedSection, type ExtractionLimits } from "./types";

// Anchored, one bounded choice, nothing after the repetition: linear on any line.
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export interface MarkdownHeading {
  level: number;
  text: string;
}

/** Tracks fenced code blocks line by line, so `# comment` inside a fence is not read as a heading. */
export function markdownHeadingReader(): (line: string) => MarkdownHeading | null {
  let fence: string | null = null;
  return (line) => {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      return null;
    }
    if (fence !== null) return null;
    return parseAtxHeading(line);
  };
}

const isSpaceOrTab = (char: string | undefined) => char === " " || char === "\t";

/**
 * An ATX heading (`## Title ##`): up to three spaces, one to six `#`, a space or tab, the text,
 * an optional closing run of `#`. Scanned by hand: the regex version backtracks quadratically over
 * a long run of spaces (a 5 MB line of them blocked a worker for hours).
 */
export function parseAtxHeading(line: string): MarkdownHeading | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let level = 0;
  while (line[i + level] === "#") level++;
  if (level < 1 || level > 6) return null;
  const start = i + level;
  if (!isSpaceOrTab(line[start])) return null;
  let end = line.length;
  while (end > start && isSpaceOrTab(line[end - 1])) end--;
  let closing = end;
  while (closing > start && line[closing - 1] === "#") closing--;
  if (closing < end && isSpaceOrTab(line[closing - 1])) end = closing;
  const text = line.slice(start, end).trim();
  return text === "" ? null : { level, text };
}

/** The text without `<!-- … -->` comments; one indexOf scan, an unclosed comment runs to the end. */
export function stripHtmlComments(text: string): string {
  const kept: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf("<!--", from);
    if (start < 0) break;
    kept.push(text.slice(from, start));
    const end = text.indexOf("-->", start + 4);
    if (end < 0) return kept.join("");
    from = end + 3;
  }
  kept.push(text.slice(from));
  return kept.join("");
}

export function extractMarkdown(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): ExtractedDocument {
  const readHeading = markdownHeadingReader();
  const sections: ExtractedSection[] = [];
  /** Open headings, outermost first: a new heading closes those at its level or deeper. */
  const path: MarkdownHeading[] = [];
  let firstTopLevel: string | null = null;
  let current: ExtractedSection = { heading: null, text: "", pageStart: null, pageEnd: null };
  const lines: string[] = [];
  const close = () => sections.push({ ...current, text: lines.splice(0).join("\n") });

  for (const line of stripHtmlComments(decodeUtf8(bytes)).replace(/\r\n?/g, "\n").split("\n")) {
    const heading = readHeading(line);
    if (!heading) {
      lines.push(line);
      continue;
    }
    close();
    if (heading.level === 1) firstTopLevel ??= heading.text;
    while (path.length > 0 && path.at(-1)!.level >= heading.level) path.pop();
    path.push(heading);
    current = { heading: path.map((entry) => entry.text).join(" > "), text: "", pageStart: null, pageEnd: null };
  }
  close();
  return buildDocument("markdown", sections, null, undefined, limits, firstTopLevel);
}
