/**
 * Every language the product speaks, one pack each (lib/languages/<code>.ts, the type in
 * pack.ts). `satisfies` makes the compiler refuse a supported language without a pack, or a pack
 * without a list; the unit test refuses an empty list its pack does not explain.
 */
import { catalogLanguage } from "../messages";
import type { Language } from "../language";
import { german } from "./de";
import { english } from "./en";
import { spanish } from "./es";
import { french } from "./fr";
import { italian } from "./it";
import type { LanguagePack, SupportedLanguage } from "./pack";
import { portuguese } from "./pt";

export type { LanguagePack, SupportedLanguage } from "./pack";

export const LANGUAGE_PACKS = {
  en: english,
  es: spanish,
  fr: french,
  de: german,
  pt: portuguese,
  it: italian,
} satisfies Record<SupportedLanguage, LanguagePack>;

/** The packs in the catalog's order. */
export const PACKS: readonly LanguagePack[] = Object.values(LANGUAGE_PACKS);

/** The pack of `language`, English's for a language the product does not speak (as its fixed sentences fall back). */
export function packFor(language: Language): LanguagePack {
  return LANGUAGE_PACKS[catalogLanguage(language)];
}

/** Acknowledgements every language uses ("ok"): small talk, but they say nothing about which language a reply is in. */
export const SHARED_ACKNOWLEDGEMENTS: readonly string[] = ["ok", "okay"];
