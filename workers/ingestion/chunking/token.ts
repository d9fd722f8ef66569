/**
 * Fixed token windows: `chunkTokens` tokens each, the next starting `overlapTokens` before the
 * previous ended. Structure-blind on purpose (predictable sizes); windows stay inside a section.
 */
import { tokenizer } from "../../llm/tokens";
import type { ExtractedSection } from "../extract/types";
import type { DraftChunk } from "./types";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes tokens [start, end) if they hold whole characters (a window edge can split a multi-byte one). */
function decodeWhole(tokens: Uint32Array, start: number, end: number): string | null {
  try {
    return strictUtf8.decode(tokenizer().decode(tokens.subarray(start, end)));
  } catch {
    return null;
  }
}

/**
 * A window starting at `start` of at most `size` tokens, nudged (at most 3 tokens each side) so
 * it neither starts nor ends inside a character. Returns the text and the end actually used.
 */
function window(tokens: Uint32Array, start: number, size: number): { text: string; start: number; end: number } {
  const limit = Math.min(tokens.length, start + size);
  for (let from = start; from <= start + 3 && from < limit; from++) {
    for (let to = limit; to >= limit - 3 && to > from; to--) {
      const text = decodeWhole(tokens, from, to);
      if (text !== null) return { text, start: from, end: to };
    }
  }
  // Not decodable at any nearby edge (should not happen with cl100k): fall back to lossy decoding.
  return { text: new TextDecoder().decode(tokenizer().decode(tokens.subarray(start, limit))), start, end: limit };
}

/** Longest stretch encoded at once: tiktoken is quadratic on one long run of letters (100k ≈ 7 s). */
const SEGMENT_CHARS = 500;
const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char);

/**
 * The text's tokens, encoded in stretches of at most SEGMENT_CHARS cut before whitespace (where the
 * tokenizer would split anyway), or hard where a run has none, so the cost stays linear.
 */
function encodeInSegments(text: string): Uint32Array {
  const parts: Uint32Array[] = [];
  let length = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SEGMENT_CHARS);
    if (end < text.length) {
      let cut = end;
      while (cut > start + 1 && !isSpace(text[cut])) cut--;
      if (cut > start + 1) end = cut;
      else if (/[\ud800-\udbff]/.test(text[end - 1]!)) end--; // keep a surrogate pair whole
    }
    const part = tokenizer().encode(text.slice(start, end), "all");
    parts.push(part);
    length += part.length;
    start = end;
  }
  const tokens = new Uint32Array(length);
  let offset = 0;
  for (const part of parts) {
    tokens.set(part, offset);
    offset += part.length;
  }
  return tokens;
}

export function tokenWindows(text: string, chunkTokens: number, overlapTokens: number): string[] {
  const tokens = encodeInSegments(text);
  const windows: string[] = [];
  let start = 0;
  while (start < tokens.length) {
    const current = window(tokens, start, chunkTokens);
    windows.push(current.text);
    if (current.end >= tokens.length) break;
    start = Math.max(current.start + 1, current.end - overlapTokens);
  }
  return windows;
}

export function tokenChunks(section: ExtractedSection, chunkTokens: number, overlapTokens: number): DraftChunk[] {
  const { heading, pageStart, pageEnd } = section;
  return tokenWindows(section.text, chunkTokens, overlapTokens).map((content) => ({ content, heading, pageStart, pageEnd }));
}
