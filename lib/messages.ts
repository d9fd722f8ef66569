/**
 * The product's fixed sentences, in every language it writes them in: the one catalog, so no
 * sentence a person reads is scattered as a string beside the code that says it. The tutor's
 * prompt instruction, the offline model's fixed replies (greetings, the general-rung notice, "the
 * material is in another language", the reply on health topics) and the follow-up suggestions
 * read from here. Any other language falls back to English (`messagesFor`), while the tutor is
 * still asked to answer in the employee's own language (workers/tutor/prompts.ts). The sentences
 * are kept by audience in messages/: the tutor's (`tutor-lines.ts`), the admin assistant's about
 * its actions (`action-lines.ts`) and a failed turn's (`turn-failure-lines.ts`); this module
 * puts them together per language.
 */
import { languageName, type Language } from "./language";
import { ACTION_LINES, type ActionLines } from "./messages/action-lines";
import { TURN_FAILURE_LINES, type TurnFailureLines } from "./messages/turn-failure-lines";
import { TUTOR_LINES, type TutorLines } from "./messages/tutor-lines";

export const CATALOG_LANGUAGES = ["en", "es", "fr", "de", "pt", "it"] as const;
export type CatalogLanguage = (typeof CATALOG_LANGUAGES)[number];

/** The language whose sentences are used for `language`: itself when the catalog has it, else English. */
export function catalogLanguage(language: Language): CatalogLanguage {
  return (CATALOG_LANGUAGES as readonly string[]).includes(language) ? (language as CatalogLanguage) : "en";
}

/** Every fixed sentence of one language: the tutor's, the admin assistant's about its actions, and a failed turn's. */
export interface Messages extends TutorLines {
  action: ActionLines;
  /** A turn that could not finish (workers/turns/stage-failure.ts): what happened, and what to do. */
  turnFailure: TurnFailureLines;
}

const MESSAGES = Object.fromEntries(
  CATALOG_LANGUAGES.map((language) => [language, { ...TUTOR_LINES[language], action: ACTION_LINES[language], turnFailure: TURN_FAILURE_LINES[language] }]),
) as Record<CatalogLanguage, Messages>;

/** The fixed sentences for `language`, English where the catalog has none of its own. */
export function messagesFor(language: Language): Messages {
  return MESSAGES[catalogLanguage(language)];
}

/** The name of `language` as a speaker of `reader` writes it ("es" for a French reader: "espagnol"). */
export function languageNameFor(language: Language, reader: Language): string {
  return languageName(language, catalogLanguage(reader));
}
