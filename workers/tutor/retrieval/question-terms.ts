/**
 * The terms of a question that say what it is about, in English and Spanish: content words
 * without the words every question to the tutor is framed with ("what does the company say
 * about…", "¿qué dice la empresa sobre…?"), each cut to a crude stem so plural and singular
 * meet ("policies"/"policy", "vacaciones"/"vacación") in the text and in Postgres `simple`
 * full-text search alike, with the words of its family (word-families.ts: "product" is met by
 * "item"), marked when it is an everyday word ("days", "form"), and grouped by the clause of
 * the question it belongs to, so two questions in one are judged one by one (relevance.ts).
 */
import { normalise, searchTerms } from "../language";
import { familyOf, isEveryday, rewritePhrases } from "./word-families";

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
}

/**
 * Words that frame a question rather than name its subject, beyond the stop words language.ts
 * already drops. "company" and "empresa" name the organisation every question is asked of; the
 * verbs ask for an answer without saying what it is; the rest are function words.
 */
const FRAME_WORDS = new Set([
  ...`company companies organisation organization firm say says said tell explain explains mean means know need want use using used
  happen happens find give show please could would should will may might must long often way ways best good new make made does did
  rule rules thing things exactly take takes taking by as from them its was were than out doesn don isn even still though why who whom
  whose let done whether some into over under then all such only own same other each more most very just also been being am doing
  had having shall not no so too here these those they their he she his her us per every anything something allow allowed permitted
  supposed able`.split(/\s+/),
  ...`empresa empresas compania organizacion dice dicen decir explica explican significa saber sabes necesito quiero queremos usar
  pasa ocurre forma manera mejor bueno buena nuevo nueva hacer hace hago debo debe deben tiene tienen cosa cosas exactamente segun
  cada todo todos toda todas otro otra otros otras mas muy tambien ya sin entre hasta desde porque pero ni usa usan uso ser estar esta
  estan fue era han ha puede pueden quien quienes cuanto cuanta adonde yo permite permitido`.split(/\s+/),
]);

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
 * and at "and"/"y" (or "or"/"o", "also"/"además") followed by a question word.
 */
const CLAUSE_BREAK =
  /[?;]+\s*¿?|,?\s+(?:and|or|also|y|o|además|ademas)\s+(?=(?:what|how|which|when|where|who|why|can|could|do|does|did|is|are|should|must|will|would|qué|que|cómo|como|cuánto|cuánta|cuántos|cuántas|cuanto|cuantos|cuál|cual|cuáles|dónde|donde|adónde|cuándo|cuando|quién|quien|puedo|puede|debo|hay|tengo|tiene)\b)/giu;

/** The question's parts, one question each (one part for most questions). */
export function clausesOf(question: string): string[] {
  return question
    .split(CLAUSE_BREAK)
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * The question's distinctive terms, one per folded stem (at most 16), each with its clause. A
 * clause of everyday words only ("and what do I need to bring?") is not a question of its own:
 * its terms join the clause before it (or after it, for the first).
 */
export function contentTermsOf(question: string): QuestionTerm[] {
  const byStem = new Map<string, { forms: Set<string>; operands: Set<string>; everyday: boolean; clause: number }>();
  clausesOf(rewritePhrases(question.toLowerCase())).forEach((clause, index) => {
    for (const written of searchTerms(clause)) {
      const lexeme = written.replace(/[^\p{L}\p{N}]/gu, "");
      const plain = normalise(lexeme);
      const stem = termStem(plain);
      if (plain.length <= 1 || FRAME_WORDS.has(plain) || FRAME_WORDS.has(stem)) continue;
      // An amount or a count ("350 EUR", "three weeks ago") is a detail of the question, not its subject.
      const everyday = isEveryday(plain) || /^\d+$/.test(plain);
      const term = byStem.get(stem) ?? { forms: new Set([stem]), operands: new Set<string>(), everyday, clause: index };
      for (const form of operands(stem)) term.operands.add(form);
      for (const form of operands(termStem(lexeme))) term.operands.add(form);
      for (const member of familyOf(plain, termStem)) {
        const folded = termStem(normalise(member));
        term.forms.add(folded);
        for (const form of [...operands(folded), ...operands(termStem(member))]) term.operands.add(form);
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
