/**
 * The reader's language and how it is chosen: before sign-in, their earlier choice in this
 * browser (localStorage) else the browser's languages; once signed in, what GET /api/v1/me
 * resolved (their saved choice, what their identity provider stated, else Accept-Language). The
 * page is first drawn once its language's catalog is here, so it never shows English first. A
 * choice made in the page's switch is shown as soon as its catalog is, kept in this browser and,
 * when signed in, saved to their profile (PATCH /api/v1/me) by the handler the signed-in frame
 * registers. A catalog that cannot be fetched leaves the page in the language it is in.
 */
import type { ComponentChildren } from "preact";
import { createContext, render } from "preact";
import { useContext, useLayoutEffect, useState } from "preact/hooks";
import { DEFAULT_PAGE_LANGUAGE, PAGE_LANGUAGES, type PageLanguage, pageLanguageOf, resolvePageLanguage } from "../../../../lib/page-language";
import { LanguageContext, applyPageLanguage, loadPageLanguage, useT } from "./index";

const STORE_KEY = "skillnet.language";

/** Each language by its own name, so a reader finds theirs whatever the page is in now. */
export const LANGUAGE_AUTONYMS: Record<PageLanguage, string> = {
  en: "English",
  es: "Español",
  fr: "Français",
  de: "Deutsch",
  pt: "Português",
  it: "Italiano",
};

export function storedChoice(): PageLanguage | undefined {
  try {
    return pageLanguageOf(localStorage.getItem(STORE_KEY));
  } catch {
    return undefined;
  }
}

function remember(language: PageLanguage): void {
  try {
    localStorage.setItem(STORE_KEY, language);
  } catch {
    // Storage refused (private mode, quota): the choice lasts for this page only.
  }
}

export function browserLanguage(): PageLanguage {
  return resolvePageLanguage(storedChoice(), typeof navigator === "undefined" ? [] : navigator.languages);
}

interface Choice {
  /** Settles once the page is in `language`, or stays as it was (its catalog could not be fetched, or a later choice came first). */
  choose(language: PageLanguage, options?: { save?: boolean }): Promise<void>;
  /** Set while signed in: how a choice reaches the person's profile. */
  setSaver(saver: ((language: PageLanguage) => Promise<void>) | undefined): void;
}
const ChoiceContext = createContext<Choice>({ choose: async () => undefined, setSaver: () => undefined });
let saver: ((language: PageLanguage) => Promise<void>) | undefined;
/** Counts choices, so a catalog that arrives after a later choice's does not win. */
let choices = 0;

/** `initial`'s catalog must be loaded already (renderInReadersLanguage does it). */
function LanguageProvider({ initial, children }: { initial: PageLanguage; children: ComponentChildren }) {
  const [language, setLanguage] = useState<PageLanguage>(initial);
  // Drawn again after a failed fetch, so the switch shows the language the page is still in.
  const [, redraw] = useState(0);
  applyPageLanguage(language);
  const choice: Choice = {
    async choose(next, { save = true } = {}) {
      const ticket = ++choices;
      const loaded = await loadPageLanguage(next);
      if (ticket !== choices) return;
      if (!loaded) {
        redraw((count) => count + 1);
        return;
      }
      applyPageLanguage(next);
      setLanguage(next);
      if (!save) return;
      remember(next);
      void saver?.(next).catch((error: unknown) => console.warn("The language choice was not saved", error));
    },
    setSaver(next) {
      saver = next;
    },
  };
  return (
    <ChoiceContext.Provider value={choice}>
      <LanguageContext.Provider value={language}>{children}</LanguageContext.Provider>
    </ChoiceContext.Provider>
  );
}

/** Draws a page in the reader's language once its catalog is here (in English if it cannot be fetched). */
export async function renderInReadersLanguage(page: ComponentChildren, root: HTMLElement): Promise<void> {
  const wanted = browserLanguage();
  const language = (await loadPageLanguage(wanted)) ? wanted : DEFAULT_PAGE_LANGUAGE;
  render(<LanguageProvider initial={language}>{page}</LanguageProvider>, root);
}

export function useLanguageChoice(): Choice {
  return useContext(ChoiceContext);
}

type SignedInMe = { user: { page_locale: string | null }; page_language: string };

/**
 * Once signed in: the language `/api/v1/me` resolved, unless the person chose one in this browser
 * before signing in and their profile has none yet (then that choice is saved to it).
 */
function signedInChoice(me: SignedInMe): { language: PageLanguage; save: boolean } {
  const chosenHere = storedChoice();
  if (!me.user.page_locale && chosenHere) return { language: chosenHere, save: true };
  return { language: resolvePageLanguage(me.page_language), save: false };
}

/** Fetches the signed-in page's catalog, so the frame waits for it rather than drawing in one language and then another. */
export async function loadSignedInLanguage(me: SignedInMe): Promise<void> {
  await loadPageLanguage(signedInChoice(me).language);
}

/** Applies the signed-in language before the frame is painted (its catalog is here once loadSignedInLanguage ran). */
export function useSignedInLanguage(me: SignedInMe | null, save: (language: PageLanguage) => Promise<void>): void {
  const choice = useLanguageChoice();
  useLayoutEffect(() => {
    if (!me) return;
    choice.setSaver(save);
    const { language, save: saveIt } = signedInChoice(me);
    void choice.choose(language, { save: saveIt });
    return () => choice.setSaver(undefined);
  }, [me]);
}

/** The language switch: a select of every page language by its own name. */
export function LanguageSwitch() {
  const { t, language } = useT();
  const choice = useLanguageChoice();
  return (
    <select
      class="language-switch"
      aria-label={t("language.switch")}
      title={t("language.switch")}
      value={language}
      onChange={(event) => {
        const picked = pageLanguageOf((event.target as HTMLSelectElement).value);
        if (picked) void choice.choose(picked);
      }}
    >
      {PAGE_LANGUAGES.map((code) => (
        <option key={code} value={code} lang={code}>
          {LANGUAGE_AUTONYMS[code]}
        </option>
      ))}
    </select>
  );
}
