/**
 * What an employee's own wording needs for a question to meet the material that answers it, in
 * English and Spanish: families of words that mean the same thing at work ("product"/"item"/
 * "goods", "devolver"/"devolución"), phrases that stand for one word ("bring it back" is a
 * return), and the everyday words any question may carry ("days", "hours", "form", "team",
 * "bring"), which say little about what a question is about wherever they occur. Lists, not
 * a thesaurus: small enough to read, and each entry is there because an employee says it.
 */

import { foldAccents } from "../../../lib/language";

/**
 * Words that count as one another, folded (lower case, no accents), as written. Each member is
 * stemmed like a question's words (question-terms.ts), so one entry covers its plural and
 * derived forms; the accented spellings are listed where the `simple` full-text config needs them.
 */
const FAMILIES: readonly string[] = [
  // English
  "product item goods article merchandise",
  "refund reimburse reimbursement",
  "receipt invoice",
  "buy bought purchase",
  "customer shopper client buyer",
  "employee staff worker colleague",
  "manager boss supervisor",
  "faulty defective broken damaged",
  "swap exchange replace replacement",
  "complain complaint",
  "reply respond response answer",
  "condition state",
  "period window timeframe",
  "photocopy photocopied copy",
  "escalate escalation",
  // Spanish
  "producto articulo artículo mercancia mercancía",
  "devolver devolución devolucion devuelvo devuelve devuelven devoluciones",
  "reembolso reembolsar",
  "recibo ticket comprobante factura",
  "comprar compra compré",
  "jefe responsable encargado supervisor",
  "peso kilo kilos kg pesado",
  "solo sola",
  "volver vuelva vuelvas vuelvo",
  "renovar renueva renuevan renovada renovación renovacion",
  "velocidad rápido rapido",
];

/**
 * Phrases rewritten before a question is split into words: a verb with "back" is a return, and
 * "money back" a refund, in whatever order the employee puts the object ("bring items back");
 * "llevar puesto" is wearing, "llevar".
 */
const PHRASES: ReadonlyArray<[RegExp, string]> = [
  [
    /\b(?:bring|brings|bringing|brought|give|gives|giving|gave|take|takes|taking|took|send|sends|sending|sent)\s+((?:[\p{L}\p{N}'-]+\s+){0,3}?)back\b/giu,
    "return $1",
  ],
  [/\bmoney\s+back\b/giu, "refund"],
  [/\b(?:llevar|llevo|lleva|llevamos|llevan)\s+puest[oa]s?\b/giu, "llevar"],
];

/** Rewrites the phrases that stand for one word (lower-case text in, lower-case text out). */
export function rewritePhrases(text: string): string {
  return PHRASES.reduce((rewritten, [pattern, replacement]) => rewritten.replace(pattern, replacement), text);
}

/**
 * Everyday words: time units, counts, the verbs and nouns any request is made of. A question's key terms
 * are the others; these still count, for a fifth of their rarity weight (EVERYDAY_WEIGHT).
 */
const EVERYDAY = new Set(
  `day days week weeks month months year years hour hours minute minutes time times today tomorrow morning night weekend
  bring get got go goes going come put keep send ask fill help leave start stop end finish call follow walk walks run sit stand
  wait lose lost forget forgot look see think try
  form forms team teams people person someone anyone somebody thing part place kind type types number list information detail
  question problem case first last next back up down quick quickly fast soon still again else ago
  one two three four five six seven eight nine ten twelve twenty hundred once twice
  dia dias semana semanas mes meses ano anos hora horas minuto minutos tiempo hoy manana noche
  llevar llevo lleva traer ir voy va venir poner pedir dar da dan doy enviar mandar rellenar ayudar
  formulario formularios equipo equipos persona personas gente alguien tipo tipos parte lugar numero lista informacion pregunta problema caso
  primero primera ultimo ultima siguiente rapido pronto vez veces uno dos tres cuatro cinco seis siete ocho nueve diez cien`.split(/\s+/),
);

/** Share of its rarity weight an everyday word keeps: enough to count, never enough to carry a question alone. */
export const EVERYDAY_WEIGHT = 0.2;

export function isEveryday(folded: string): boolean {
  return EVERYDAY.has(folded);
}

/** The members of a word's family (as written), or the word alone. `stemOf` maps each to the stem it is matched by. */
export function familyOf(folded: string, stemOf: (word: string) => string): string[] {
  return familiesByStem(stemOf).get(stemOf(folded)) ?? [];
}

/**
 * Each member's stem → its family (the first family that has it, as a search in order finds), built once
 * per stemmer: folding and stemming every member for every word of every question was half a
 * millisecond of each turn.
 */
const familyIndexes = new WeakMap<(word: string) => string, Map<string, string[]>>();
function familiesByStem(stemOf: (word: string) => string): Map<string, string[]> {
  let index = familyIndexes.get(stemOf);
  if (!index) {
    index = new Map();
    for (const family of FAMILY_MEMBERS)
      for (const member of family) {
        const stem = stemOf(foldAccents(member));
        if (!index.has(stem)) index.set(stem, family);
      }
    familyIndexes.set(stemOf, index);
  }
  return index;
}

const FAMILY_MEMBERS: readonly string[][] = FAMILIES.map((family) => family.split(/\s+/).filter(Boolean));
