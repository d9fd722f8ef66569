/**
 * What the product must know of a language to speak it: one `LanguagePack` per supported
 * language (lib/languages/<code>.ts), collected in lib/languages/index.ts, where the compiler
 * checks that every language of the catalog has a pack and every pack every list. The readers:
 * language detection (short replies), the tutor's intent heuristics, the admin assistant's
 * confirmation rule, the grounding judge (stop and frame words, stemming, word families), the
 * sensitive-topic lexicon and the offline model. Every word is written folded (lower case, no
 * accents: `foldAccents`), except where a list says otherwise.
 */
import type { CatalogLanguage, Messages } from "../messages";
import type { SensitiveTopic } from "../sensitive-topics";
import type { WorkplaceConcept } from "./workplace-concepts";

/** A language the product speaks: it has a pack and fixed sentences. */
export type SupportedLanguage = CatalogLanguage;

/** A Snowball stemmer (`@orama/stemmers`): a lower-case word in, its stem out. */
export type Stemmer = (word: string) => string;

/** The admin assistant's reading of a reply to a pending action (workers/admin/confirmation.ts). */
export interface ConfirmationWords {
  /** Phrases that are plainly a yes ("go ahead", "adelante", "vas y"). */
  yes: readonly string[];
  /** Phrases that are plainly a no ("cancel it", "mejor no", "lieber nicht"). */
  no: readonly string[];
  /** Phrases that stop the session's running action ("stop", "para", "arrête"). */
  stop: readonly string[];
  /** Politeness a plain reply may carry ("please", "gracias", "bitte"). */
  polite: readonly string[];
  /** Fillers a plain reply may carry ("now", "ya", "maintenant"). */
  fillers: readonly string[];
  /** The word for "and" between two phrases of a plain reply. */
  and: readonly string[];
  /** Words that make a reply a question when they open it ("what", "qué", "warum"). */
  questionOpeners: readonly string[];
  /** Phrases anywhere in a reply that make it conditional or hesitant ("if", "quizás", "vielleicht"). */
  hedges: readonly string[];
  /** Words of an instruction that changes the request ("add", "quita", "ajoute"). */
  changeWords: readonly string[];
}

/** The grounding judge's lists (workers/tutor/language.ts, workers/tutor/retrieval/question-terms.ts and word-families.ts). */
export interface GroundingWords {
  /** Function words a keyword search drops ("the", "el", "le", "der"). */
  stopWords: readonly string[];
  /** Words that frame a question rather than name its subject ("company", "empresa", "entreprise", "sagen"). */
  frameWords: readonly string[];
  /** Everyday words (time units, counts, the verbs any request is made of): they count for a fifth of a key term. */
  everydayWords: readonly string[];
  /** Words that count as one another at work, one family a string, as written (accented spellings where Postgres needs them). */
  wordFamilies: readonly string[];
  /** Phrases that stand for one word ("bring it back" is a return), rewritten in lower-case text before it is split. */
  phraseRewrites: ReadonlyArray<readonly [RegExp, string]>;
  /** Words that join two questions in one ("and", "y", "et"), as written. */
  clauseJoiners: readonly string[];
  /** Words that open a question after a joiner ("what", "qué", "comment"), as written, accented and not. */
  questionWords: readonly string[];
}

export interface LanguagePack {
  code: SupportedLanguage;
  /** The fixed sentences (lib/messages.ts): the pack refers to them, the catalog keeps them. */
  messages: Messages;
  /** Whole-message greetings and farewells ("good morning", "hasta luego"). */
  greetings: readonly string[];
  /** Whole-message thanks ("thank you", "muchas gracias"); a message holding one is thanks. */
  thanks: readonly string[];
  /** Short replies that close small talk ("great", "vale", "super"). */
  acknowledgements: readonly string[];
  /**
   * Other short words that tell the language of a reply too short for n-grams ("yes", "please",
   * "para"): with the greetings, thanks and acknowledgements, what lib/language-detection.ts reads.
   */
  shortReplyWords: readonly string[];
  /** Phrases that ask about one's own progress ("my progress", "mes notes"): the tutor's progress intent. */
  progressPhrases: readonly string[];
  confirmation: ConfirmationWords;
  grounding: GroundingWords;
  /**
   * The workplace concepts in this language's words (workplace-concepts.ts), space-separated, as
   * written (accented spellings where Postgres needs them): the grounding judge meets a question's
   * word with every language's words for its concept, so material in one language answers a
   * question in another.
   */
  workplaceTerms: Readonly<Record<WorkplaceConcept, string>>;
  /** The Snowball stemmer of the language, applied to folded words. */
  stem: Stemmer;
  /**
   * Whether the grounding judge matches a question's words by this stemmer too, beside the
   * shared crude stem every language is matched by. False where the judge's floors were measured
   * with the crude stem alone (eval/tuning.md): adding forms there would change what grounds.
   */
  judgeStems: boolean;
  /** Health terms by topic: word beginnings, or phrases when they hold a space (lib/sensitive-topics.ts). */
  healthTerms: Readonly<Record<SensitiveTopic, readonly string[]>>;
  /** Why a list is empty: a list may only be empty when the pack says why here. */
  fallbacks: Readonly<Partial<Record<PackListName, string>>>;
}

/** The name of every list a pack holds (nested lists by their own name), for the completeness check and its fallbacks. */
export type PackListName =
  | "greetings"
  | "thanks"
  | "acknowledgements"
  | "shortReplyWords"
  | "progressPhrases"
  | `confirmation.${keyof ConfirmationWords}`
  | `grounding.${keyof GroundingWords}`
  | `healthTerms.${SensitiveTopic}`;

/** A list written as one string of words or comma-separated phrases. */
export const wordList = (text: string): string[] => text.split(/\s+/).filter(Boolean);
export const phraseList = (text: string): string[] =>
  text
    .split(",")
    .map((phrase) => phrase.trim().replace(/\s+/g, " "))
    .filter(Boolean);
