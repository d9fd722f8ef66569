/**
 * Languages and the text folding every heuristic compares with: the tutor and the admin assistant,
 * name matching in db/ and the offline model server all use these, so they cannot disagree on what
 * a word is. Which language a message is in: lib/language-detection.ts (kept apart so that
 * processes that never detect a language, such as the HTTP server, do not load its n-grams).
 */

/** An ISO 639-1 code in lower case ("en", "es", "fr", …): any language, not only those with fixed sentences (lib/messages.ts). */
export type Language = string;

/** The last resort of every fallback chain. */
export const DEFAULT_LANGUAGE: Language = "en";

const ISO_639_1 = /^[a-z]{2}$/;

/** True for a two-letter lower-case code such as `users.locale` and `courses.language` hold. */
export function isLanguageCode(value: unknown): value is Language {
  return typeof value === "string" && ISO_639_1.test(value);
}

/** A language's name in English ("fr" → "French"), for prompts; the code itself if the runtime does not know it. */
export function languageName(language: Language, inLanguage: Language = "en"): string {
  try {
    return new Intl.DisplayNames([inLanguage], { type: "language" }).of(language) ?? language;
  } catch {
    return language;
  }
}

/** Lower case without accents ("Política" → "politica"): the one accent folding of the product. */
export function foldAccents(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}
