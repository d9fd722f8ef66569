/**
 * A question's word in every language the product speaks: the language packs' workplace terms
 * (lib/languages/workplace-concepts.ts), so "congés" in a French question is met by "leave" in an
 * English policy and "Urlaub" in a German one, and "overtime" by "Überstunden". Hashed
 * embeddings cannot carry a question across languages; these words let the keyword search and
 * the relevance judge do it for the subjects company material is about, and nothing more.
 */
import { foldAccents, type Language } from "../../../lib/language";
import { PACKS, packFor } from "../../../lib/languages";
import { PLACE_CONCEPTS, type WorkplaceConcept } from "../../../lib/languages/workplace-concepts";

interface Concept {
  concept: WorkplaceConcept;
  /** Every language's words for it, as written. */
  members: string[];
}

/** Shortest folded term met inside a compound ("Schutzausrüstung" holds "ausrustung"): a shorter one is part of unrelated words too often. */
const COMPOUND_PART = 6;

/**
 * Languages that write compounds as one word, whose words are read for a term they end with.
 * Not the Romance languages: there a word ending in a term is another word ("télétravail" is
 * not "travail", remote work is not work).
 */
const COMPOUNDING: ReadonlySet<string> = new Set(["de"]);

const add = (index: Map<string, Concept[]>, key: string, concept: Concept) => {
  const list = index.get(key) ?? [];
  if (!list.includes(concept)) list.push(concept);
  index.set(key, list);
};

/**
 * Folded word → its concepts, and `<language>:<Snowball stem>` → the concepts of that language's
 * words with the stem (so "viajo" meets "viajar" and "ammalo" "ammalarsi" in their own language),
 * built once from every pack.
 */
const { byWord, byStem } = (() => {
  const concepts = new Map<WorkplaceConcept, Concept>();
  const words = (text: string) => text.split(/\s+/).filter(Boolean);
  for (const pack of PACKS)
    for (const [concept, text] of Object.entries(pack.workplaceTerms) as Array<[WorkplaceConcept, string]>) {
      const entry = concepts.get(concept) ?? { concept, members: [] };
      entry.members.push(...words(text));
      concepts.set(concept, entry);
    }
  const byWord = new Map<string, Concept[]>();
  const byStem = new Map<string, Concept[]>();
  for (const pack of PACKS)
    for (const [concept, text] of Object.entries(pack.workplaceTerms) as Array<[WorkplaceConcept, string]>)
      for (const member of words(text)) {
        const folded = foldAccents(member);
        add(byWord, folded, concepts.get(concept)!);
        if (pack.judgeStems) add(byStem, `${pack.code}:${pack.stem(folded)}`, concepts.get(concept)!);
      }
  return { byWord, byStem };
})();

const compoundParts = [...byWord.keys()].filter((word) => word.length >= COMPOUND_PART);

/**
 * The concepts a folded question word names: the word itself or its crude stem (`crudeStem`, the
 * judge's) is a term of one, or its Snowball stem is the stem of a term of the question's own
 * language, or the word is a compound that ends with a long term ("Dienstreisen" ends with
 * "reisen", "Schutzausrüstung" with "ausrustung").
 */
function conceptsOf(folded: string, language: Language | undefined, crudeStem: (word: string) => string): Concept[] {
  const found = new Set<Concept>();
  const pack = packFor(language ?? "en");
  for (const form of [folded, crudeStem(folded)]) for (const concept of byWord.get(form) ?? []) found.add(concept);
  if (pack.judgeStems) for (const concept of byStem.get(`${pack.code}:${pack.stem(folded)}`) ?? []) found.add(concept);
  if (found.size === 0 && COMPOUNDING.has(pack.code) && folded.length > COMPOUND_PART)
    for (const part of compoundParts) if (folded.length > part.length && folded.endsWith(part)) for (const concept of byWord.get(part)!) found.add(concept);
  return [...found];
}

/**
 * The words, in every language, that meet a question word (as written, accented where a pack
 * writes them so); none when the word names no workplace concept.
 */
export function workplaceTranslations(folded: string, language: Language | undefined, crudeStem: (word: string) => string): string[] {
  return [...new Set(conceptsOf(folded, language, crudeStem).flatMap((concept) => concept.members))].filter((member) => !tooCommon.has(foldAccents(member)));
}

/**
 * Words some pack counts as function, frame or everyday words ("leave", a verb as much as a
 * holiday in English): too common in their own language to stand for a concept in another's text,
 * so they meet a question in no other language (they still name the concept when asked in).
 */
const tooCommon: ReadonlySet<string> = new Set(
  PACKS.flatMap((pack) => [...pack.grounding.stopWords, ...pack.grounding.frameWords, ...pack.grounding.everydayWords]),
);

/** Whether the word names a place (a country the company works in): it says where a question is asked from, not what it is about. */
export function namesPlace(folded: string, language: Language | undefined, crudeStem: (word: string) => string): boolean {
  const concepts = conceptsOf(folded, language, crudeStem);
  return concepts.length > 0 && concepts.every((concept) => PLACE_CONCEPTS.includes(concept.concept));
}
