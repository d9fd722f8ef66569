/**
 * Which language a message is in. Detection is the maintained `eld` library (Nito-ELD, its "small"
 * n-gram database: 60 languages, offline, no weights downloaded, ~40 µs a message), chosen over
 * franc and tinyld because it was the only one of the three that held up on the short messages
 * employees send (docs/architecture.md, "Languages"). A text too short to tell ("ok", "Urlaub?")
 * is not guessed: the caller's fallbacks decide, in the order given — for a tutor turn the
 * session's earlier messages, the employee's `users.locale`, the course's language, then English.
 */
import { eld } from "eld/small";
import { DEFAULT_LANGUAGE, foldAccents, isLanguageCode, type Language } from "./language";
import { PACKS } from "./languages";

/**
 * Greetings, thanks and one-word replies, which are too short for n-grams ("hi" scores as Catalan,
 * "sí" as Yoruba, "obrigada" as Catalan): they decide before the library, but only for a text of
 * at most four words, every one in one language's list and in no other's. The words are those of
 * each language pack's greetings, thanks, acknowledgements and short replies (lib/languages/),
 * accent-free as `foldAccents` leaves them; single letters say nothing.
 */
const SHORT_PHRASES: Record<string, ReadonlySet<string>> = Object.fromEntries(
  PACKS.map((pack) => [
    pack.code,
    new Set(
      [...pack.greetings, ...pack.thanks, ...pack.acknowledgements, ...pack.shortReplyWords]
        .flatMap((phrase) => phrase.split(" "))
        .filter((word) => word.length > 1),
    ),
  ]),
);

/** When every word of a short text is a greeting, thanks or yes of one language only, that language. */
function shortPhraseLanguage(text: string): Language | undefined {
  const words = foldAccents(text).match(/[\p{L}']+/gu) ?? [];
  if (words.length === 0 || words.length > 4) return undefined;
  const matches = Object.entries(SHORT_PHRASES).filter(([, list]) => words.every((word) => list.has(word)));
  return matches.length === 1 ? matches[0]?.[0] : undefined;
}

/** Messages of at most this many words are read without their names and ids (`withoutNames`). */
const SHORT_MESSAGE_WORDS = 12;

/** Fewer words than this left once names and ids are set aside: too few to tell a language by. */
const MIN_TELLING_WORDS = 4;

/** A token that identifies rather than says: it holds a digit ("e0f9a1b2", "c12"), or is an email address or a link. */
const isIdentifier = (token: string): boolean => /\d/u.test(token) || token.includes("@") || /^(?:https?:\/\/|www\.)/iu.test(token);

/** A capitalised token that does not open a sentence ("Vera", "Bianchi's", "ADHS"). */
const isCapitalisedWithin = (tokens: readonly string[], i: number): boolean =>
  i > 0 && !/[.!?:]$/u.test(tokens[i - 1]!) && /^\p{Lu}/u.test(tokens[i]!.replace(/^[^\p{L}]+/u, ""));

/**
 * Whether a token names or identifies rather than says: an id, an email or a link, or a
 * capitalised word within a sentence that reads as a name — one of a run ("Marco Rossi",
 * "Forklift Safety"), the word after a command's verb ("Deactivate Vera"), or one beside an id
 * ("Vera e0f9a1b2"). A lone capitalised noun further on is German's way of writing nouns ("wo
 * ist das Formular") and stays. N-grams read names and ids as whatever language they look like:
 * "Deactivate Vera e0f9a1b2" scored as Italian.
 */
function namesOrIdentifies(tokens: readonly string[], i: number): boolean {
  if (isIdentifier(tokens[i]!)) return true;
  if (!isCapitalisedWithin(tokens, i)) return false;
  const beside = [i - 1, i + 1].filter((j) => j >= 0 && j < tokens.length);
  return i === 1 || beside.some((j) => isCapitalisedWithin(tokens, j) || isIdentifier(tokens[j]!));
}

/**
 * A short message without its names and ids, and whether any were set aside; a longer one as
 * it is (n-grams are not misled by a few names among many words).
 */
function withoutNames(text: string): { text: string; setAside: boolean } {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.length > SHORT_MESSAGE_WORDS) return { text, setAside: false };
  const kept = tokens.filter((_, i) => !namesOrIdentifies(tokens, i));
  return { text: kept.join(" "), setAside: kept.length < tokens.length };
}

/** Words (runs of letters) of a text. */
const wordCount = (text: string): number => text.match(/\p{L}+/gu)?.length ?? 0;

/** How far behind the best score a fallback may be and still count as what the text is written in. */
const COMPATIBLE_MARGIN = 0.1;

/**
 * The language the text is in, when the text says so by itself; `undefined` when it is too short
 * or too mixed to tell. Used for the session's earlier messages, which only count when they are clear.
 */
export function languageOf(text: string): Language | undefined {
  const short = shortPhraseLanguage(text);
  if (short) return short;
  // A message that is mostly names and ids tells nothing; otherwise it is read whole, as quoted material is (offline-answer.ts).
  const named = withoutNames(text);
  if (named.setAside && wordCount(named.text) < MIN_TELLING_WORDS) return undefined;
  const result = eld.detect(text);
  return result.language && result.isReliable() ? result.language : undefined;
}

/**
 * The language to answer `text` in. A short message is read without its names and ids
 * (`withoutNames`); when that leaves too few words to tell, the first fallback decides. A short
 * greeting is read from its words; the library decides
 * when it is sure; otherwise the first fallback the text is compatible with (scored within a small
 * margin of the best guess), then a clear best guess of two words or more, then the first fallback,
 * then English. Fallbacks that are not ISO 639-1 codes (a missing locale) are skipped.
 */
export function detectLanguage(written: string, ...fallbacks: Array<string | null | undefined>): Language {
  const chain = fallbacks.filter(isLanguageCode);
  const { text, setAside } = withoutNames(written);
  const short = shortPhraseLanguage(text);
  if (short) return short;
  // "Deactivate Vera e0f9a1b2" is one word of language: the conversation's or the profile's language decides.
  if (setAside && wordCount(text) < MIN_TELLING_WORDS && chain[0]) return chain[0];
  const result = eld.detect(wordCount(text) > 0 ? text : written);
  if (result.language && result.isReliable()) return result.language;
  const ranked = Object.entries(result.getScores()).sort(([, a], [, b]) => b - a);
  const best = ranked[0]?.[1] ?? 0;
  const scores = new Map(ranked);
  const compatible = chain.find((language) => (scores.get(language) ?? -1) >= best - COMPATIBLE_MARGIN);
  if (compatible) return compatible;
  const words = text.match(/[\p{L}]+/gu)?.length ?? 0;
  const [first, second] = ranked;
  if (first && words >= 2 && first[1] - (second?.[1] ?? 0) >= COMPATIBLE_MARGIN) return first[0];
  return chain[0] ?? DEFAULT_LANGUAGE;
}

/**
 * True when `text` reads as `language` (its score is within a small margin of the best), or when
 * the text does not say clearly what it is in: only a clear other language makes it false.
 */
export function readsAs(text: string, language: Language): boolean {
  const result = eld.detect(text);
  if (!result.language || !result.isReliable()) return true;
  const scores = result.getScores();
  const best = Math.max(...Object.values(scores));
  return (scores[language] ?? -1) >= best - COMPATIBLE_MARGIN;
}
