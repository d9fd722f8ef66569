/**
 * Recursive splitting: cut a section at the coarsest boundary that makes pieces fit (paragraphs,
 * then lines, sentences, words, and as a last resort characters), then merge pieces greedily back
 * up to the budget. Pieces start with the whitespace that preceded them (" word" is one token,
 * "word " two, so sums of piece counts stay close to the real count), and every chunk is an exact
 * substring of the section text, its overlap the previous chunk's own ending.
 */
import { countTokens } from "../../llm/tokens";
import type { ExtractedSection } from "../extract/types";
import type { DraftChunk } from "./types";

// Each pattern is linear: a fixed first character or one greedy class with nothing after it.
const PARAGRAPHS = /\n[^\S\n]*\n\s*/g;
const LINES = /\n\s*/g;
const WORDS = /\s+/g;

/** Where to cut, coarsest first; the whitespace at a cut opens the following piece. */
const BOUNDARIES: Array<(text: string) => string[]> = [
  (text) => cutBefore(text, PARAGRAPHS),
  (text) => cutBefore(text, LINES),
  cutAtSentences,
  (text) => cutBefore(text, WORDS),
];

/** Counting a text far longer than the budget is wasted work: no tokenizer packs 10 characters a token. */
const MAX_CHARS_PER_TOKEN = 10;

interface Piece {
  text: string;
  tokens: number;
}

function cutBefore(text: string, boundary: RegExp): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(boundary)) {
    if (match.index > start) {
      pieces.push(text.slice(start, match.index));
      start = match.index;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

const SENTENCE_END = new Set([".", "!", "?"]);
const CLOSERS = new Set(['"', "'", "”", "’", ")", "]"]);
const CJK_SENTENCE_END = new Set(["。", "！", "？"]);
const isSpace = (char: string) => /\s/.test(char);

/**
 * Cuts before the whitespace after `.`, `!` or `?` (and any closing quotes or brackets), and right
 * after a CJK full stop that is followed by text. A scan with one character of state: the
 * lookbehind regex that did this was quadratic on a long run of closing brackets.
 */
export function cutAtSentences(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let ended = false; // the characters just read end a sentence (terminator, then closers)
  const cut = (at: number) => {
    if (at > start) pieces.push(text.slice(start, at));
    start = at;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (ended && isSpace(char)) {
      cut(i);
      while (i + 1 < text.length && isSpace(text[i + 1]!)) i++;
      ended = false;
      continue;
    }
    if (i > 0 && CJK_SENTENCE_END.has(text[i - 1]!) && !isSpace(char)) cut(i);
    ended = SENTENCE_END.has(char) || (ended && CLOSERS.has(char));
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/**
 * Character windows for text with no usable boundary (a URL, unspaced script). Never counts more
 * than one window at a time: tiktoken is quadratic on one long run of letters (100k letters ≈ 7 s).
 */
function hardSplit(text: string, maxTokens: number): Piece[] {
  const pieces: Piece[] = [];
  let charsPerToken = 4;
  let rest = text;
  while (rest !== "") {
    let length = Math.min(rest.length, Math.max(1, Math.floor(maxTokens * charsPerToken)));
    let tokens = countTokens(rest.slice(0, length));
    while (length > 1 && tokens > maxTokens) {
      length = Math.max(1, Math.min(length - 1, Math.floor((length * maxTokens * 0.97) / tokens)));
      tokens = countTokens(rest.slice(0, length));
    }
    const code = rest.charCodeAt(length - 1);
    if (length > 1 && length < rest.length && code >= 0xd800 && code <= 0xdbff) tokens = countTokens(rest.slice(0, --length)); // keep surrogate pairs whole
    pieces.push({ text: rest.slice(0, length), tokens });
    charsPerToken = Math.max(0.25, length / Math.max(1, tokens));
    rest = rest.slice(length);
  }
  return pieces;
}

/** Pieces that each fit the budget, as large as the boundaries allow, in text order. */
export function splitToFit(text: string, maxTokens: number, level = 0): Piece[] {
  if (text.length <= maxTokens * MAX_CHARS_PER_TOKEN) {
    const tokens = countTokens(text);
    if (tokens <= maxTokens) return [{ text, tokens }];
  }
  const cut = BOUNDARIES[level];
  if (!cut) return hardSplit(text, maxTokens);
  const parts = cut(text);
  if (parts.length <= 1) return splitToFit(text, maxTokens, level + 1);
  return parts.flatMap((part) => splitToFit(part, maxTokens, level + 1));
}

const sum = (pieces: Piece[]) => pieces.reduce((total, piece) => total + piece.tokens, 0);
const join = (pieces: Piece[]) => pieces.map((piece) => piece.text).join("");

/** The end of a chunk to repeat: whole trailing pieces if they fit, else trailing words. */
function overlapTail(pieces: Piece[], overlapTokens: number): Piece[] {
  if (overlapTokens <= 0 || pieces.length === 0) return [];
  let first = pieces.length;
  let total = 0;
  while (first > 0 && total + pieces[first - 1]!.tokens <= overlapTokens) total += pieces[--first]!.tokens;
  if (first < pieces.length) return pieces.slice(first);
  const words = cutBefore(pieces.at(-1)!.text, WORDS).map((text) => ({ text, tokens: countTokens(text) }));
  return words.length > 1 ? overlapTail(words, overlapTokens) : [];
}

/** Merges the section's pieces into chunk texts of at most `chunkTokens` tokens. */
export function mergePieces(pieces: Piece[], chunkTokens: number, overlapTokens: number): string[] {
  const chunks: string[] = [];
  let current: Piece[] = [];
  let tokens = 0; // the sum of piece counts, or the exact count of `current` when `exact`
  let exact = true;
  let fresh = 0; // pieces in `current` that are not overlap from the previous chunk
  const restart = (from: Piece[]) => {
    current = from;
    tokens = sum(from);
    exact = from.length <= 1;
  };
  // The sum is close but not exact (joins can merge tokens); before refusing a piece, count once exactly.
  const fits = (piece: Piece) => {
    if (tokens + piece.tokens <= chunkTokens) return true;
    if (exact) return false;
    tokens = countTokens(join(current));
    exact = true;
    return tokens + piece.tokens <= chunkTokens;
  };

  for (const piece of pieces) {
    if (current.length > 0 && !fits(piece)) {
      if (fresh > 0) chunks.push(join(current));
      restart(overlapTail(current, overlapTokens));
      fresh = 0;
      while (current.length > 0 && !fits(piece)) restart(current.slice(1));
    }
    current.push(piece);
    tokens += piece.tokens;
    exact = current.length === 1;
    fresh++;
  }
  if (fresh > 0) chunks.push(join(current));
  return chunks;
}

export function chunkText(text: string, chunkTokens: number, overlapTokens: number): string[] {
  return mergePieces(splitToFit(text, chunkTokens), chunkTokens, overlapTokens);
}

export function recursiveChunks(section: ExtractedSection, chunkTokens: number, overlapTokens: number): DraftChunk[] {
  const { heading, pageStart, pageEnd } = section;
  return chunkText(section.text, chunkTokens, overlapTokens).map((content) => ({ content, heading, pageStart, pageEnd }));
}
