/**
 * The terms of a question that say what it is about, read with the lists of its language's pack
 * (and English's and Spanish's: `judgePacks`): content words without the words every question to
 * the tutor is framed with ("what does the company say about…", "¿qué dice la empresa
 * sobre…?"), each cut to a crude stem so plural and singular meet ("policies"/"policy",
 * "vacaciones"/"vacación") in the text and in Postgres `simple` full-text search alike, with the
 * words of its family (word-families.ts: "product" is met by "item"), marked when it is an
 * everyday word ("days", "form"), and grouped by the clause of the question it belongs to, so two
 * questions in one are judged one by one (relevance.ts). Where the pack says so (`judgeStems`),
 * a word is also met by its Snowball stem ("corsi" by "corso", "Schulungen" by "Schulung").
 */
import type { Language } from "../../../lib/language";
import { packFor, type SupportedLanguage } from "../../../lib/languages";
import { normalise, perJudgeLanguage, searchTerms } from "../language";
import { familyOf, isEveryday, rewritePhrases } from "./word-families";
import { namesPlace, workplaceTranslations } from "./workplace-terms";

export interface QuestionTerm {
  /** Folded (accent-free, lower-case) stem of the question's word. */
  stem: string;
  /** Folded stems a word of the text may match for this term: the stem and its family's. */
  forms: string[];
  /** The same term as a `to_tsquery('simple', …)` expression (every form, accented and accent-free). */
  query: string;
  /** An everyday word (word-families.ts): it counts for less than the question's key terms. */
  everyday: boolean;
  /** Which clause of the question the term is from (0 for a question of one clause). */
  clause: number;
  /** The pack the question was read with (its language, English for a language without one). */
  language: SupportedLanguage;
  /** Snowball stems (that pack's stemmer) of the word and its family: a text word with one of them matches too. Empty unless the pack's `judgeStems`. */
  stems: string[];
}

/**
 * Words that frame a question rather than name its subject, beyond the stop words language.ts
 * already drops: the packs' `frameWords`, and their greetings and thanks ("Bonjour, je voudrais…"). "company" and "empresa" name the organisation every
 * question is asked of; the verbs ask for an answer without saying what it is; the rest are
 * function words.
 */
const frameWordsOf = perJudgeLanguage(
  (packs) =>
    new Set([...packs.flatMap((pack) => pack.grounding.frameWords), ...packs.flatMap((pack) => [...pack.greetings, ...pack.thanks]).filter(isOneWord)]),
);

/** A greeting or thanks of one word ("bonjour", "thanks"): a question opened with one is not about it. A phrase's words ("good day") may be. */
const isOneWord = (phrase: string): boolean => !phrase.includes(" ");

/** Longest stem kept: enough to tell words apart, short enough that derived forms still meet. */
const MAX_STEM = 8;

/**
 * A crude, deterministic stem of a lower-case word: Spanish -ciones/-siones, English -ies/-y/-ing/-ed,
 * plural -es/-s, the Spanish infinitive's -ar/-ir of a long word ("levantar" meets "levanta"; not -er,
 * which would cut English nouns: "customer", "counter"), then capped.
 */
export function termStem(word: string): string {
  let stem = word;
  if (stem.length > 7 && /[cs]iones$/.test(stem)) stem = stem.slice(0, -4);
  else if (stem.length > 4 && stem.endsWith("ies")) stem = stem.slice(0, -3);
  else if (stem.length > 4 && stem.endsWith("y")) stem = stem.slice(0, -1);
  else if (stem.length > 6 && stem.endsWith("ing")) stem = stem.slice(0, -3);
  else if (stem.length > 5 && stem.endsWith("ed")) stem = stem.slice(0, -2);
  else if (stem.length > 5 && stem.endsWith("es")) stem = stem.slice(0, -2);
  else if (stem.length > 3 && stem.endsWith("s")) stem = stem.slice(0, -1);
  else if (stem.length > 6 && /[ai]r$/.test(stem)) stem = stem.slice(0, -2);
  return stem.slice(0, MAX_STEM);
}

/**
 * Whether a folded word of a text is an occurrence of a stem: a prefix for stems of PREFIX_STEM
 * letters or more, else the same stem ("days" is an occurrence of "day", "dayton" is not; "exam"
 * does not occur in "example", nor "form" in "format"). The text side of `operands` below, so a
 * passage and Postgres agree on what matched.
 */
export function occursAs(stem: string, word: string): boolean {
  return stem.length >= PREFIX_STEM ? word.startsWith(stem) : termStem(word) === stem;
}

/** Shortest stem matched as a prefix: a shorter one is a whole word of its own too often ("form", "exam", "card"). */
const PREFIX_STEM = 5;

/** tsquery operands of a stem: a prefix for long stems; a short one as itself and with its inflections. */
function operands(stem: string): string[] {
  return stem.length >= PREFIX_STEM ? [`${stem}:*`] : [stem, `${stem}s`, `${stem}es`, `${stem}ed`, `${stem}ing`];
}

/**
 * Where a question holds more than one: after a question mark or a semicolon with more text,
 * and at a joiner ("and"/"y", "or"/"o", "also"/"además", the packs' `clauseJoiners`) followed by
 * a question word (their `questionWords`).
 */
const clauseBreakOf = perJudgeLanguage((packs) => {
  const joiners = packs.flatMap((pack) => pack.grounding.clauseJoiners).join("|");
  const questionWords = packs.flatMap((pack) => pack.grounding.questionWords).join("|");
  return new RegExp(`[?;]+\\s*¿?|,?\\s+(?:${joiners})\\s+(?=(?:${questionWords})\\b)`, "giu");
});

/** The question's parts, one question each (one part for most questions). */
export function clausesOf(question: string, language?: Language): string[] {
  return question
    .split(clauseBreakOf(language))
    .map((part) => part.trim())
    .filter(Boolean);
}

/** A word of a text as the judge compares it: folded, with its Snowball stem when the question's pack matches by one. */
export interface TextWord {
  word: string;
  stem: string | null;
}

/** The distinct words of a text, each stemmed once (not once per term) when the terms are matched by Snowball stems too. */
export function textWordsOf(text: string, terms: readonly QuestionTerm[]): TextWord[] {
  const stemming = terms.find((term) => term.stems.length > 0);
  const stem = stemming ? packFor(stemming.language).stem : undefined;
  return [...new Set(normalise(text).split(" "))].map((word) => ({ word, stem: stem ? stem(word) : null }));
}

/** Whether a word of a text is an occurrence of the term: of its crude stem or a family member's (`occursAs`), or of its Snowball stems. */
export function occursIn(term: QuestionTerm, { word, stem }: TextWord): boolean {
  return term.forms.some((form) => occursAs(form, word)) || (stem !== null && term.stems.includes(stem));
}

/** Shortest Snowball stem a term keeps: two letters are a word of their own too often. */
const MIN_SNOWBALL_STEM = 3;

/** Shortest Snowball stem searched as a prefix in Postgres: a shorter one ("fer", "cors") would find unrelated words. */
const PREFIX_SNOWBALL_STEM = 4;

/**
 * The question's distinctive terms, one per folded stem (at most 16), each with its clause. A
 * clause of everyday words only ("and what do I need to bring?") is not a question of its own:
 * its terms join the clause before it (or after it, for the first).
 */
export function contentTermsOf(question: string, language?: Language): QuestionTerm[] {
  const pack = packFor(language ?? "en");
  const frameWords = frameWordsOf(language);
  const snowball = pack.judgeStems ? pack.stem : undefined;
  const byStem = new Map<string, { forms: Set<string>; operands: Set<string>; stems: Set<string>; everyday: boolean; clause: number }>();
  clausesOf(rewritePhrases(question.toLowerCase(), language), language).forEach((clause, index) => {
    for (const written of searchTerms(clause, language)) {
      const lexeme = written.replace(/[^\p{L}\p{N}]/gu, "");
      const plain = normalise(lexeme);
      const stem = termStem(plain);
      if (plain.length <= 1 || frameWords.has(plain) || frameWords.has(stem)) continue;
      // An amount or a count ("350 EUR", "three weeks ago") is a detail of the question, not its subject; so is
      // the country it is asked from, which a site's own policy seldom names ("in Germany" of the German rules).
      const everyday = isEveryday(plain, language) || /^\d+$/.test(plain) || namesPlace(plain, language, termStem);
      const term = byStem.get(stem) ?? { forms: new Set([stem]), operands: new Set<string>(), stems: new Set<string>(), everyday, clause: index };
      for (const form of operands(stem)) term.operands.add(form);
      for (const form of operands(termStem(lexeme))) term.operands.add(form);
      const family = familyOf(plain, termStem, language);
      const members = family.length > 0 || !snowball ? family : familyOf(plain, snowball, language);
      for (const member of members) {
        const folded = termStem(normalise(member));
        term.forms.add(folded);
        for (const form of [...operands(folded), ...operands(termStem(member))]) term.operands.add(form);
      }
      // The same workplace concept in the other languages' words, matched by their crude stems as family members are.
      // Only for a key term: an everyday word says little about what a question is about, in any language.
      for (const translation of everyday ? [] : workplaceTranslations(plain, language, termStem)) {
        const folded = termStem(normalise(translation));
        term.forms.add(folded);
        for (const form of [...operands(folded), ...operands(termStem(translation))]) term.operands.add(form);
      }
      if (snowball) {
        for (const word of [plain, ...members.map(normalise)]) {
          const stemmed = snowball(word);
          if (stemmed.length < MIN_SNOWBALL_STEM) continue;
          term.stems.add(stemmed);
          if (stemmed.length >= PREFIX_SNOWBALL_STEM) term.operands.add(`${stemmed}:*`);
        }
      }
      byStem.set(stem, term);
    }
  });
  const terms = [...byStem.entries()].slice(0, 16).map(([stem, term]) => ({
    stem,
    forms: [...term.forms],
    query: [...term.operands].join(" | "),
    everyday: term.everyday,
    clause: term.clause,
    language: pack.code,
    stems: [...term.stems],
  }));
  return joinEverydayClauses(terms);
}

/** Renumbers clauses 0…n−1, folding each clause that holds only everyday words into a neighbour. */
function joinEverydayClauses(terms: QuestionTerm[]): QuestionTerm[] {
  const clauses = [...new Set(terms.map((term) => term.clause))];
  const standing = clauses.filter((clause) => terms.some((term) => term.clause === clause && !term.everyday));
  if (standing.length === 0) return terms.map((term) => ({ ...term, clause: 0 }));
  const home = (clause: number) => {
    const before = standing.filter((c) => c <= clause);
    return before.length > 0 ? before.at(-1)! : standing[0]!;
  };
  return terms.map((term) => ({ ...term, clause: standing.indexOf(home(term.clause)) }));
}
