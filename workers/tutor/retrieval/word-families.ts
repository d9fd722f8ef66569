/**
 * What an employee's own wording needs for a question to meet the material that answers it, in
 * the words of the language packs (lib/languages/): families of words that mean the same thing at work ("product"/"item"/
 * "goods", "devolver"/"devolución"), phrases that stand for one word ("bring it back" is a
 * return), and the everyday words any question may carry ("days", "hours", "form", "team",
 * "bring"), which say little about what a question is about wherever they occur. Lists, not
 * a thesaurus: small enough to read, and each entry is there because an employee says it.
 */

import { foldAccents, type Language } from "../../../lib/language";
import type { LanguagePack } from "../../../lib/languages";
import { perJudgeLanguage } from "../language";

/** Phrases rewritten before a question is split into words ("bring items back" is a return), the packs' in order. */
const phraseRewritesOf = perJudgeLanguage((packs) => packs.flatMap((pack) => pack.grounding.phraseRewrites));

/** Rewrites the phrases that stand for one word (lower-case text in, lower-case text out). */
export function rewritePhrases(text: string, language?: Language): string {
  return phraseRewritesOf(language).reduce((rewritten, [pattern, replacement]) => rewritten.replace(pattern, replacement), text);
}

/**
 * Everyday words: time units, counts, the verbs and nouns any request is made of. A question's key terms
 * are the others; these still count, for a fifth of their rarity weight (EVERYDAY_WEIGHT).
 */
const everydayOf = perJudgeLanguage((packs) => new Set(packs.flatMap((pack) => pack.grounding.everydayWords)));

/** Share of its rarity weight an everyday word keeps: enough to count, never enough to carry a question alone. */
export const EVERYDAY_WEIGHT = 0.2;

export function isEveryday(folded: string, language?: Language): boolean {
  return everydayOf(language).has(folded);
}

/** The members of a word's family (as written), or none. `stemOf` maps each to the stem it is matched by. */
export function familyOf(folded: string, stemOf: (word: string) => string, language?: Language): string[] {
  return familiesByStem(stemOf, language).get(stemOf(folded)) ?? [];
}

/**
 * Words that count as one another, the families of the question's language pack first, then
 * English's and Spanish's (`judgePacks`): lower case, as written. Each member is stemmed like a
 * question's words (question-terms.ts), so one entry covers its plural and derived forms; the
 * accented spellings are listed where the `simple` full-text config needs them.
 */
function membersOf(packs: readonly LanguagePack[]): string[][] {
  return packs.flatMap((pack) => pack.grounding.wordFamilies).map((family) => family.split(/\s+/).filter(Boolean));
}

/**
 * Each member's stem → its family (the first family that has it, as a search in order finds), built once
 * per stemmer and language: folding and stemming every member for every word of every question was half a
 * millisecond of each turn.
 */
const familyIndexes = new WeakMap<(word: string) => string, (language?: Language) => Map<string, string[]>>();
function familiesByStem(stemOf: (word: string) => string, language?: Language): Map<string, string[]> {
  let indexOf = familyIndexes.get(stemOf);
  if (!indexOf) {
    indexOf = perJudgeLanguage((packs) => {
      const index = new Map<string, string[]>();
      for (const family of membersOf(packs))
        for (const member of family) {
          const stem = stemOf(foldAccents(member));
          if (!index.has(stem)) index.set(stem, family);
        }
      return index;
    });
    familyIndexes.set(stemOf, indexOf);
  }
  return indexOf(language);
}
