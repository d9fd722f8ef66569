/**
 * How the pages get each language's catalog. English is in every page's bundle (the default and
 * the fallback); every other language is a chunk of its own, fetched with `import()` only when a
 * reader's page is in it, so a page carries one catalog rather than six. `satisfies` makes the
 * compiler refuse a page language without a loader, and each catalog's `Catalog` type a missing or
 * unknown id. The browser imports this module, never ./index (which holds all six, for the server).
 */
import type { PageLanguage } from "../../../../../lib/page-language";
import { type Catalog, en } from "./en";

export const CATALOG_LOADERS = {
  en: () => Promise.resolve(en),
  es: () => import("./es").then((module) => module.es),
  fr: () => import("./fr").then((module) => module.fr),
  de: () => import("./de").then((module) => module.de),
  pt: () => import("./pt").then((module) => module.pt),
  it: () => import("./it").then((module) => module.it),
} satisfies Record<PageLanguage, () => Promise<Catalog>>;
