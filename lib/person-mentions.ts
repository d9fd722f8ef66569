/**
 * Finding one person in text other people's chats hold (an admin's assistant session that looked
 * them up: its answers, tool-call arguments, summary), and replacing them with a neutral
 * placeholder the admin can still read: "[erased person] (…) is enrolled in …".
 *
 * What counts as a mention:
 * - their id or email, anywhere, in any case;
 * - their full name as a whole: word boundaries on both sides (so "Ana Ruiz" is not found in
 *   "Ana Ruizmartín", and a colleague who only shares the first name is never touched), any case,
 *   with or without accents on either side ("Garcia" finds "García" and the other way round), any
 *   run of spaces or a line break between its words. A name of one word is never a mention (it
 *   would be any colleague's first name, or a word), nor a first name alone.
 *
 * Matching runs on the decomposed text (NFD: a base letter, then its accents), one linear regex
 * with no nested quantifiers; text without a mention is returned as it was, byte for byte.
 */

/** What the person is replaced with, wherever they were named. */
export const ERASED_MENTION = "[erased person]";

export interface PersonToFind {
  ids: readonly string[];
  emails: readonly string[];
  /** Full names (`users.name`, and given + family name when the directory has them). */
  names: readonly string[];
}

/** Outside a character class in a `u` regex only syntax characters may be escaped. */
const literal = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

const NOT_WORD_BEFORE = "(?<![\\p{L}\\p{N}\\p{M}])";
const NOT_WORD_AFTER = "(?![\\p{L}\\p{N}\\p{M}])";

/** A name letter by letter, each base letter followed by whatever accents the text puts on it; words joined by any whitespace. */
function namePattern(name: string): string | undefined {
  const words = name
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .trim()
    .split(/\s+/u)
    .filter(Boolean);
  // A one-word name ("Ana", or "sales" taken from an address) is no full name: matching it alone
  // would rewrite every colleague called Ana, or every "sales", in the organisation's chats.
  if (words.length < 2 || words.join("").length < 2) return undefined;
  const word = (text: string) => [...text].map((letter) => `${literal(letter)}\\p{M}*`).join("");
  return `${NOT_WORD_BEFORE}${words.map(word).join("\\s+")}${NOT_WORD_AFTER}`;
}

export interface MentionFinder {
  /** Whether the text names the person. */
  mentions(text: string): boolean;
  /** The text with every mention replaced by ERASED_MENTION (the same string when there is none). */
  scrub(text: string): string;
  /** A JSON value with every string (keys included) scrubbed; `changed` says whether anything was. */
  scrubJson(value: unknown): { value: unknown; changed: boolean };
}

export function findPerson(person: PersonToFind): MentionFinder {
  const alternatives = [
    // Longest first, so a full name wins over a shorter one it contains.
    ...[...person.names].sort((a, b) => b.length - a.length).map(namePattern),
    // Whole only: "ana@corp.com" is not found inside "mariana@corp.com", nor an id inside a longer token.
    ...[...person.ids, ...person.emails]
      .filter((text) => text.length > 0)
      .map((text) => `(?<![\\p{L}\\p{N}._%+-])${literal(text.normalize("NFD"))}(?![\\p{L}\\p{N}_-])`),
  ].filter((pattern): pattern is string => pattern !== undefined);
  const pattern = alternatives.length > 0 ? new RegExp(alternatives.join("|"), "giu") : undefined;
  const mentions = (text: string): boolean => {
    if (!pattern || !text) return false;
    pattern.lastIndex = 0;
    return pattern.test(text.normalize("NFD"));
  };
  const scrub = (text: string): string => (mentions(text) ? text.normalize("NFD").replace(pattern!, ERASED_MENTION).normalize("NFC") : text);
  const scrubJson = (value: unknown): { value: unknown; changed: boolean } => {
    if (typeof value === "string") {
      const scrubbed = scrub(value);
      return { value: scrubbed, changed: scrubbed !== value };
    }
    if (Array.isArray(value)) {
      const items = value.map(scrubJson);
      return { value: items.map((item) => item.value), changed: items.some((item) => item.changed) };
    }
    if (value && typeof value === "object") {
      let changed = false;
      const entries = Object.entries(value).map(([key, item]) => {
        const scrubbedKey = scrub(key);
        const scrubbed = scrubJson(item);
        changed ||= scrubbedKey !== key || scrubbed.changed;
        return [scrubbedKey, scrubbed.value];
      });
      return { value: Object.fromEntries(entries), changed };
    }
    return { value, changed: false };
  };
  return { mentions, scrub, scrubJson };
}
