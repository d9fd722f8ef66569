/**
 * Token counting with tiktoken's cl100k_base: close enough for every provider to make budget,
 * truncation and cost decisions. One encoder per process (loading it is the expensive part).
 */
import { LRUCache } from "lru-cache";
import { get_encoding, type Tiktoken } from "tiktoken";

let encoder: Tiktoken | undefined;

/** The process's one cl100k encoder; the chunker's token windows use it too (a second one cost its load time and tables again). */
export function tokenizer(): Tiktoken {
  encoder ??= get_encoding("cl100k_base");
  return encoder;
}

/**
 * Loads the encoder now. Building cl100k's tables takes ≈ 0.4 s of synchronous CPU: done by the
 * first turn's budget check, it froze every answer the process was streaming for that long.
 */
export function loadTokenizer(): void {
  tokenizer();
}

export function countTokens(text: string): number {
  return tokenizer().encode(text, "all").length;
}

/**
 * Counts of texts that are counted again turn after turn: a conversation's earlier messages and
 * its system prompt are tokenised for every new turn's history budget and context fit (4 % of a
 * tutor worker's CPU in the streaming benchmark, bench/optimisations.md section 17). A text's
 * count never changes, so it is remembered by the text itself; short texts cost less to count
 * than to remember. Bounded by the characters held: past the bound the least recently used go.
 */
const REMEMBERED_FROM_LENGTH = 200;
const rememberedCounts = new LRUCache<string, number>({ maxSize: 4_000_000, sizeCalculation: (_count, text) => text.length });

/** countTokens for a text that is likely to be counted again (history, prompts); the same result. */
export function countTokensRemembered(text: string): number {
  if (text.length < REMEMBERED_FROM_LENGTH) return countTokens(text);
  const known = rememberedCounts.get(text);
  if (known !== undefined) return known;
  const count = countTokens(text);
  rememberedCounts.set(text, count);
  return count;
}

export interface CountableMessage {
  role: string;
  content?: string | null;
  name?: string;
}

/**
 * A bound no text's token count exceeds: its UTF-8 length, since every cl100k token is at least
 * one byte. Budget checks try it first and tokenise only when it does not settle the question:
 * tokenising every prompt was a seventh of a tutor worker's CPU (bench/optimisations.md).
 */
export function tokensAtMost(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The same bound for chat messages, framing included (as countMessageTokens counts it). */
export function messageTokensAtMost(messages: CountableMessage[]): number {
  let total = 2;
  for (const message of messages) {
    total += 4 + tokensAtMost(message.role) + tokensAtMost(message.content ?? "");
    if (message.name) total += tokensAtMost(message.name);
  }
  return total;
}

/** Chat messages cost their text plus a per-message frame (role and delimiters) and reply priming. */
export function countMessageTokens(messages: CountableMessage[]): number {
  let total = 2;
  for (const message of messages) {
    total += 4 + countTokens(message.role) + countTokensRemembered(message.content ?? "");
    if (message.name) total += countTokens(message.name) - 1;
  }
  return total;
}

/** The longest prefix of `text` that fits in `maxTokens`, cut at a line or word boundary. */
export function truncateToTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  const encoder = tokenizer();
  const tokens = encoder.encode(text, "all");
  if (tokens.length <= maxTokens) return { text, truncated: false };
  const decoded = new TextDecoder().decode(encoder.decode(tokens.slice(0, Math.max(0, maxTokens))));
  const boundary = Math.max(decoded.lastIndexOf("\n"), decoded.lastIndexOf(" "));
  return { text: boundary > decoded.length * 0.8 ? decoded.slice(0, boundary) : decoded, truncated: true };
}
