/**
 * The pages' words in the reader's language (ICU MessageFormat through @formatjs/intl): `t` for a
 * plain string, `rich` for a message with markup, and dates, numbers and sizes in the language's
 * own format. The catalogs are typed modules (./catalog), so an id English has and another
 * language lacks does not compile; English is in the page's bundle and any other language is
 * fetched when first needed (./catalog/loaders.ts, `loadPageLanguage`), before the page is drawn
 * in it. One language is current for the whole page: code outside
 * components (error sentences, the upload queue's notes) reads it when it runs, and components
 * that call `useT()` draw again when the reader switches. Which language: lib/page-language.ts.
 */
import { createIntl, createIntlCache, type IntlShape } from "@formatjs/intl";
import { type ComponentChildren, createContext } from "preact";
import { useContext } from "preact/hooks";
import { DEFAULT_PAGE_LANGUAGE, type PageLanguage } from "../../../../lib/page-language";
import { type Catalog, en, type MessageId } from "./catalog/en";
import { CATALOG_LOADERS } from "./catalog/loaders";

export type { MessageId } from "./catalog/en";
export type Values = Record<string, string | number | Date | null | undefined>;
type RichValues = Record<string, string | number | ComponentChildren | ((chunks: ComponentChildren[]) => ComponentChildren)>;

const cache = createIntlCache();

/** The catalogs this page has: English from the start, another language once `loadPageLanguage` fetched it. */
const catalogs = new Map<PageLanguage, Catalog>([["en", en]]);

function intlFor(language: PageLanguage, messages: Catalog): IntlShape<ComponentChildren> {
  return createIntl<ComponentChildren>(
    {
      locale: language,
      messages,
      defaultLocale: DEFAULT_PAGE_LANGUAGE,
      // A missing message cannot happen (the catalogs are typed); a bad value is shown as the id rather than breaking the page.
      onError: (error) => console.warn(`i18n: ${error.message}`),
    },
    cache,
  );
}

let current: IntlShape<ComponentChildren> = intlFor(DEFAULT_PAGE_LANGUAGE, en);

/** How long a page waits for a language's catalog (about 10 KB) before it is drawn without it. */
const CATALOG_WAIT_MS = 4_000;

/**
 * Fetches `language`'s catalog unless the page has it: true once it is here; false, with a
 * warning, when it could not be fetched (the network failed) — the page then stays as it is.
 */
export async function loadPageLanguage(language: PageLanguage): Promise<boolean> {
  if (catalogs.has(language)) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // A request that hangs (a stalled proxy, a weak mobile link) counts as failed: the page is drawn in what it has.
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${CATALOG_WAIT_MS} ms`)), CATALOG_WAIT_MS);
    });
    catalogs.set(language, await Promise.race([CATALOG_LOADERS[language](), stalled]));
    return true;
  } catch (error) {
    console.warn(`i18n: the "${language}" catalog could not be fetched; the page stays in "${current.locale}"`, error);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Makes `language` the page's language (the provider calls this before drawing); its catalog must be loaded already. */
export function applyPageLanguage(language: PageLanguage): void {
  const messages = catalogs.get(language);
  if (!messages) return;
  if (current.locale !== language) current = intlFor(language, messages);
  if (typeof document !== "undefined") document.documentElement.lang = language;
}

/** A message as plain text (for attributes, confirm dialogs and sentences built outside components). */
export function t(id: MessageId, values?: Values): string {
  return String(current.formatMessage({ id }, values as Record<string, string | number | Date>));
}

/** A message with markup: `<b>…</b>` in the catalog becomes what `values.b` makes of its chunks. */
export function rich(id: MessageId, values: RichValues): ComponentChildren {
  return current.formatMessage({ id }, values as never) as ComponentChildren;
}

/** A date in the reader's language (15 March 2026 / 15 mars 2026). */
export function formatDay(value: string | number | Date, options: Intl.DateTimeFormatOptions = { day: "numeric", month: "long", year: "numeric" }): string {
  return current.formatDate(value, options);
}

/** A moment with its time, medium date and short time. */
export function formatMoment(value: string | number | Date): string {
  return current.formatDate(value, { dateStyle: "medium", timeStyle: "short" });
}

export function formatNumber(value: number, options?: Parameters<IntlShape["formatNumber"]>[1]): string {
  return current.formatNumber(value, options);
}

/** A size in bytes in the reader's units and decimal mark ("1.5 MB", "1,5 Mo" is not used: SI symbols everywhere). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "?";
  const units: Array<[number, string, number]> = [
    [1024 ** 3, "GB", 1],
    [1024 ** 2, "MB", 1],
    [1024, "kB", bytes < 10 * 1024 ? 1 : 0],
  ];
  for (const [size, unit, digits] of units) {
    if (bytes >= size) return `${formatNumber(bytes / size, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${unit}`;
  }
  return `${formatNumber(bytes)} B`;
}

/** An amount in US dollars, as the usage report estimates it. */
export function formatUsd(value: number): string {
  const digits = value < 1 ? 4 : 2;
  return formatNumber(value, { style: "currency", currency: "USD", minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Which language is current, so components that read it draw again when it changes. */
export const LanguageContext = createContext<PageLanguage>(DEFAULT_PAGE_LANGUAGE);

const TOOLS = { t, rich, formatDay, formatMoment, formatNumber, formatBytes, formatUsd };

/** The translation tools, subscribed to the page's language. */
export function useT(): typeof TOOLS & { language: PageLanguage } {
  const language = useContext(LanguageContext);
  return { ...TOOLS, language };
}

/** A message with markup as a component: `<Msg id="…" values={{ b: (c) => <strong>{c}</strong> }} />`. */
export function Msg({ id, values = {} }: { id: MessageId; values?: RichValues }) {
  useContext(LanguageContext);
  return <>{rich(id, values)}</>;
}
