/**
 * Markdown-aware chunking: cut each section at the markdown headings inside its text first, so a
 * chunk never mixes two subsections and carries its heading path ("Returns > Receipts"), then
 * split each block recursively. Headings inside fenced code blocks are left alone.
 */
import { markdownHeadingReader } from "../extract/markdown";
import type { ExtractedSection } from "../extract/types";
import { chunkText } from "./recursive";
import type { DraftChunk } from "./types";

export interface MarkdownBlock {
  /** Heading texts from the section heading down to this block's own heading. */
  path: string[];
  text: string;
}

/** The section's text cut at its markdown headings, each block with its heading path. */
export function markdownBlocks(section: ExtractedSection): MarkdownBlock[] {
  const readHeading = markdownHeadingReader();
  const root = section.heading ? [section.heading] : [];
  const stack: { level: number; text: string }[] = [];
  const blocks: MarkdownBlock[] = [];
  let lines: string[] = [];
  const close = () => {
    blocks.push({ path: [...root, ...stack.map((entry) => entry.text)], text: lines.join("\n") });
    lines = [];
  };

  for (const line of section.text.split("\n")) {
    const heading = readHeading(line);
    if (!heading) {
      lines.push(line);
      continue;
    }
    close();
    while (stack.length > 0 && stack.at(-1)!.level >= heading.level) stack.pop();
    stack.push(heading);
  }
  close();
  return blocks.filter((block) => block.text.trim() !== "");
}

export function markdownChunks(section: ExtractedSection, chunkTokens: number, overlapTokens: number): DraftChunk[] {
  const { pageStart, pageEnd } = section;
  return markdownBlocks(section).flatMap((block) =>
    chunkText(block.text, chunkTokens, overlapTokens).map((content) => ({
      content,
      heading: block.path.length > 0 ? block.path.join(" > ") : null,
      pageStart,
      pageEnd,
    })),
  );
}
