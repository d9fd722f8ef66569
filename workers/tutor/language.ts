/** The tutor's word heuristics: normalised text, stop words, the terms a search looks for. (Which language a message is in: lib/language.ts.) */
import { foldAccents } from "../../lib/language";

/** Lower case, no accents, no punctuation: the form heuristics compare. */
export function normalise(text: string): string {
  return foldAccents(text)
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const STOP_WORDS = new Set([
  ...[
    "que",
    "el",
    "la",
    "los",
    "las",
    "de",
    "del",
    "y",
    "en",
    "es",
    "por",
    "para",
    "como",
    "cual",
    "cuales",
    "cuantos",
    "cuantas",
    "cuando",
    "un",
    "una",
    "unos",
    "mi",
    "mis",
    "se",
    "con",
    "sobre",
    "donde",
    "lo",
    "al",
    "me",
    "te",
    "su",
    "sus",
    "hay",
    "puedo",
    "tengo",
    "son",
    "esta",
    "este",
    "o",
    "si",
    "no",
  ],
  ...[
    "the",
    "is",
    "are",
    "what",
    "how",
    "do",
    "does",
    "i",
    "my",
    "of",
    "to",
    "in",
    "can",
    "when",
    "where",
    "which",
    "a",
    "an",
    "and",
    "for",
    "with",
    "about",
    "it",
    "on",
    "be",
    "have",
    "has",
    "at",
    "or",
    "if",
    "me",
    "you",
    "your",
    "there",
    "this",
    "that",
    "we",
    "our",
    "many",
    "much",
    "any",
    "get",
  ],
]);

/** Content words of a text (normalised, stop words removed), for keyword search and overlap scores. */
export function contentWords(text: string): string[] {
  return normalise(text)
    .split(" ")
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word));
}

/**
 * Terms for Postgres full-text search: each content word in its accent-free form and, when it
 * differs, as written. The `simple` text config keeps accents, so "máximo" in a document only
 * matches the accented term, while a question typed without accents still matches accent-free text.
 */
export function searchTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const plain = normalise(word);
    if (plain.length <= 1 || STOP_WORDS.has(plain)) continue;
    terms.add(plain);
    terms.add(word);
  }
  return [...terms];
}
