/** The tutor's word heuristics: normalised text, stop words, the terms a search looks for. (Which language a message is in: lib/language-detection.ts.) */
import { DEFAULT_LANGUAGE, foldAccents, type Language } from "../../lib/language";
import { LANGUAGE_PACKS, type LanguagePack, packFor } from "../../lib/languages";

/** Lower case, no accents, no punctuation: the form heuristics compare. */
export function normalise(text: string): string {
  return foldAccents(text)
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The packs a question in `language` is read with: its own, then English's and Spanish's, which
 * every question has always been read with (material and questions mix them, and the grounding
 * floors were measured so). A language without a pack is read as English is.
 */
export function judgePacks(language: Language = DEFAULT_LANGUAGE): readonly LanguagePack[] {
  const own = packFor(language);
  return own.code === "en" || own.code === "es" ? [LANGUAGE_PACKS.en, LANGUAGE_PACKS.es] : [own, LANGUAGE_PACKS.en, LANGUAGE_PACKS.es];
}

/** Something built once per language from its judge packs (a stop-word set, a regular expression, a family index). */
export function perJudgeLanguage<T>(build: (packs: readonly LanguagePack[]) => T): (language?: Language) => T {
  const built = new Map<string, T>();
  return (language = DEFAULT_LANGUAGE) => {
    const code = packFor(language).code;
    let value = built.get(code);
    if (value === undefined) {
      value = build(judgePacks(code));
      built.set(code, value);
    }
    return value;
  };
}

const stopWordsOf = perJudgeLanguage((packs) => new Set(packs.flatMap((pack) => pack.grounding.stopWords)));

/**
 * Content words of a text (normalised, stop words removed), for keyword search and overlap scores:
 * the function words of `language` and of English and Spanish (`judgePacks`), English's and
 * Spanish's alone when no language is given.
 */
export function contentWords(text: string, language?: Language): string[] {
  const stopWords = stopWordsOf(language);
  return normalise(text)
    .split(" ")
    .filter((word) => word.length > 1 && !stopWords.has(word));
}

/**
 * Terms for Postgres full-text search: each content word in its accent-free form and, when it
 * differs, as written, without the function words of the question's language (and English's and
 * Spanish's: `judgePacks`). The `simple` text config keeps accents, so "máximo" in a document only
 * matches the accented term, while a question typed without accents still matches accent-free text.
 */
export function searchTerms(text: string, language?: Language): string[] {
  const stopWords = stopWordsOf(language);
  const terms = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const plain = normalise(word);
    if (plain.length <= 1 || stopWords.has(plain)) continue;
    terms.add(plain);
    terms.add(word);
  }
  return [...terms];
}
