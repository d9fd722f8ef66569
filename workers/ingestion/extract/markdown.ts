/**
 * Markdown: sections at top-level `#` headings. Deeper headings stay in the section text as
 * markdown lines, so the markdown chunking strategy can still build paths like "Returns > Receipts".
 */
import { decodeUtf8 } from "./text";
import { buildDocument, type ExtractedDocument, type ExtractedSection } from "./types";

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
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
    const heading = ATX_HEADING.exec(line);
    if (!heading || heading[2]!.trim() === "") return null;
    return { level: heading[1]!.length, text: heading[2]!.trim() };
  };
}

export function extractMarkdown(bytes: Buffer): ExtractedDocument {
  const readHeading = markdownHeadingReader();
  const sections: ExtractedSection[] = [];
  let current: ExtractedSection = { heading: null, text: "", pageStart: null, pageEnd: null };
  const lines: string[] = [];
  const close = () => sections.push({ ...current, text: lines.splice(0).join("\n") });

  for (const line of decodeUtf8(bytes).replace(/\r\n?/g, "\n").split("\n")) {
    const heading = readHeading(line);
    if (heading?.level === 1) {
      close();
      current = { heading: heading.text, text: "", pageStart: null, pageEnd: null };
    } else {
      lines.push(line);
    }
  }
  close();
  return buildDocument("markdown", sections);
}
