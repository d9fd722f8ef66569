/**
 * Every page language's catalog, for the server (the page's noscript line) and the tests; the
 * browser fetches them one at a time through ./loaders instead. `satisfies` makes the compiler
 * refuse a page language (lib/page-language.ts) without a catalog; each catalog's `Catalog` type
 * refuses a missing or unknown id. Placeholders and ICU syntax are checked by
 * test/unit/web/i18n-catalogs.test.ts.
 */
import type { PageLanguage } from "../../../../../lib/page-language";
import { de } from "./de";
import { type Catalog, en } from "./en";
import { es } from "./es";
import { fr } from "./fr";
import { it } from "./it";
import { pt } from "./pt";

export const CATALOGS = { en, es, fr, de, pt, it } satisfies Record<PageLanguage, Catalog>;
