/**
 * Which language the pages are drawn in: the languages they are translated into (the same as the
 * language packs, lib/languages/) and how a list of candidates — the person's choice, what their
 * identity provider stated, the browser's Accept-Language or navigator.languages — becomes one of
 * them. A tag counts by its primary language ("pt-BR" → pt, "de-AT" → de); a language the pages
 * do not speak is skipped ("zh" → the next candidate, English last). No I/O and no imports the
 * browser cannot bundle: the server (GET /api/v1/me, the HTML's `lang`) and web/src share it.
 */
import type { SupportedLanguage } from "./languages/pack";

export const PAGE_LANGUAGES = ["en", "es", "fr", "de", "pt", "it"] as const satisfies readonly SupportedLanguage[];
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** Fails to compile when a language gains a pack but not a place here (and so no page catalog). */
type Missing = Exclude<SupportedLanguage, PageLanguage>;
const everyPackHasPages: [Missing] extends [never] ? true : Missing = true;
void everyPackHasPages;

export const DEFAULT_PAGE_LANGUAGE: PageLanguage = "en";

/** The page language a BCP 47 tag stands for ("fr-CA" → "fr"), or undefined when the pages do not speak it. */
export function pageLanguageOf(tag: string | null | undefined): PageLanguage | undefined {
  if (typeof tag !== "string") return undefined;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return (PAGE_LANGUAGES as readonly string[]).includes(primary) ? (primary as PageLanguage) : undefined;
}

/** An Accept-Language header's tags, most wanted first (`q` order, then as written); `*` and `q=0` dropped. */
export function acceptedTags(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part, position) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), position };
    })
    .filter((entry) => entry.tag !== "" && entry.tag !== "*" && entry.q > 0 && Number.isFinite(entry.q))
    .sort((a, b) => b.q - a.q || a.position - b.position)
    .map((entry) => entry.tag);
}

/** The first candidate the pages speak, else English. Candidates are tags or lists of tags, in order of precedence. */
export function resolvePageLanguage(...candidates: ReadonlyArray<string | readonly string[] | null | undefined>): PageLanguage {
  for (const candidate of candidates) {
    for (const tag of typeof candidate === "string" ? [candidate] : (candidate ?? [])) {
      const language = pageLanguageOf(tag);
      if (language) return language;
    }
  }
  return DEFAULT_PAGE_LANGUAGE;
}
