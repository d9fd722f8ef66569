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

/** How far behind the best score a fallback may be and still count as what the text is written in. */
const COMPATIBLE_MARGIN = 0.1;

/**
 * The language the text is in, when the text says so by itself; `undefined` when it is too short
 * or too mixed to tell. Used for the session's earlier messages, which only count when they are clear.
 */
export function languageOf(text: string): Language | undefined {
  const short = shortPhraseLanguage(text);
  if (short) return short;
  const result = eld.detect(text);
  return result.language && result.isReliable() ? result.language : undefined;
}

/**
 * The language to answer `text` in. A short greeting is read from its words; the library decides
 * when it is sure; otherwise the first fallback the text is compatible with (scored within a small
 * margin of the best guess), then a clear best guess of two words or more, then the first fallback,
 * then English. Fallbacks that are not ISO 639-1 codes (a missing locale) are skipped.
 */
export function detectLanguage(text: string, ...fallbacks: Array<string | null | undefined>): Language {
  const chain = fallbacks.filter(isLanguageCode);
  const short = shortPhraseLanguage(text);
  if (short) return short;
  const result = eld.detect(text);
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
