/** Chunks are what gets embedded and cited: text plus where in the document it came from. */

export interface Chunk {
  content: string;
  /** The section heading (or markdown heading path "Returns > Receipts"); never repeated in `content`. */
  heading: string | null;
  pageStart: number | null;
  pageEnd: number | null;
  /** 0-based order within the document. */
  position: number;
  /** cl100k_base tokens of `content`. */
  tokenCount: number;
}

export interface ChunkingOptions {
  /**
   * recursive: paragraphs → lines → sentences → words, merged up to the budget;
   * markdown: first at markdown headings inside each section, then recursive;
   * token: fixed token windows, blind to structure.
   */
  strategy: "recursive" | "markdown" | "token";
  chunkTokens: number;
  /** Tokens repeated from the end of one chunk at the start of the next (same section only). */
  overlapTokens: number;
  /** More chunks than this fail the document (EXTRACTION_TOO_LARGE); unlimited when absent. */
  maxChunks?: number;
}

/** A chunk before it is numbered and counted; strategies return these per section. */
export interface DraftChunk {
  content: string;
  heading: string | null;
  pageStart: number | null;
  pageEnd: number | null;
}
