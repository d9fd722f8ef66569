/**
 * The terms of a question that say what it is about, in English and Spanish: content words
 * without the words every question to the tutor is framed with ("what does the company say
 * about…", "¿qué dice la empresa sobre…?"), each cut to a crude stem so plural and singular
 * meet ("policies"/"policy", "vacaciones"/"vacación") in the text and in Postgres `simple`
 * full-text search alike.
 */
import { normalise, searchTerms } from "../language";

export interface QuestionTerm {
  /** Folded (accent-free, lower-case) stem a word of the text must start with. */
  stem: string;
  /** The same term as a `to_tsquery('simple', …)` expression (accented and accent-free forms). */
  query: string;
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
  had having shall not no so too here these those they their he she his her us`.split(/\s+/),
  ...`empresa empresas compania organizacion dice dicen decir explica explican significa saber sabes necesito quiero queremos usar
  pasa ocurre forma manera mejor bueno buena nuevo nueva hacer hace hago debo debe deben tiene tienen cosa cosas exactamente segun
  cada todo todos toda todas otro otra otros otras mas muy tambien ya sin entre hasta desde porque pero ni usa usan uso ser estar esta
  estan fue era han ha puede pueden quien quienes`.split(/\s+/),
]);

/** Longest stem kept: enough to tell words apart, short enough that derived forms still meet. */
const MAX_STEM = 8;

/** A crude, deterministic stem of a lower-case word: Spanish -ciones/-siones, English -ies/-y/-ing/-ed, plural -es/-s, then capped. */
export function termStem(word: string): string {
  let stem = word;
  if (stem.length > 7 && /[cs]iones$/.test(stem)) stem = stem.slice(0, -4);
  else if (stem.length > 4 && stem.endsWith("ies")) stem = stem.slice(0, -3);
  else if (stem.length > 4 && stem.endsWith("y")) stem = stem.slice(0, -1);
  else if (stem.length > 6 && stem.endsWith("ing")) stem = stem.slice(0, -3);
  else if (stem.length > 5 && stem.endsWith("ed")) stem = stem.slice(0, -2);
  else if (stem.length > 5 && stem.endsWith("es")) stem = stem.slice(0, -2);
  else if (stem.length > 3 && stem.endsWith("s")) stem = stem.slice(0, -1);
  return stem.slice(0, MAX_STEM);
}

/** One tsquery operand: a prefix for stems of four letters or more, the word itself below. */
function operand(stem: string): string {
  return stem.length >= 4 ? `${stem}:*` : stem;
}

/** The question's distinctive terms, one per folded stem, at most 16. */
export function contentTermsOf(question: string): QuestionTerm[] {
  const byStem = new Map<string, Set<string>>();
  for (const written of searchTerms(question)) {
    const lexeme = written.replace(/[^\p{L}\p{N}]/gu, "");
    const plain = normalise(lexeme);
    if (plain.length <= 1 || FRAME_WORDS.has(plain)) continue;
    const stem = termStem(plain);
    const forms = byStem.get(stem) ?? new Set<string>();
    forms.add(operand(stem));
    forms.add(operand(termStem(lexeme)));
    byStem.set(stem, forms);
  }
  return [...byStem.entries()].slice(0, 16).map(([stem, forms]) => ({ stem, query: [...forms].join(" | ") }));
}
