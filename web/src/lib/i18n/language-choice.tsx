/**
 * The reader's language and how it is chosen: before sign-in, their earlier choice in this
 * browser (localStorage) else the browser's languages; once signed in, what GET /api/v1/me
 * resolved (their saved choice, what their identity provider stated, else Accept-Language). A
 * choice made in the page's switch is shown at once, kept in this browser and, when signed in,
 * saved to their profile (PATCH /api/v1/me) by the handler the signed-in frame registers.
 */
import type { ComponentChildren } from "preact";
import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { PAGE_LANGUAGES, type PageLanguage, pageLanguageOf, resolvePageLanguage } from "../../../../lib/page-language";
import { LanguageContext, applyPageLanguage, useT } from "./index";

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
  choose(language: PageLanguage, options?: { save?: boolean }): void;
  /** Set while signed in: how a choice reaches the person's profile. */
  setSaver(saver: ((language: PageLanguage) => Promise<void>) | undefined): void;
}
const ChoiceContext = createContext<Choice>({ choose: () => undefined, setSaver: () => undefined });
let saver: ((language: PageLanguage) => Promise<void>) | undefined;

export function LanguageProvider({ children }: { children: ComponentChildren }) {
  const [language, setLanguage] = useState<PageLanguage>(browserLanguage);
  applyPageLanguage(language);
  const choice: Choice = {
    choose(next, { save = true } = {}) {
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

export function useLanguageChoice(): Choice {
  return useContext(ChoiceContext);
}

/**
 * Once signed in: the language `/api/v1/me` resolved, unless the person chose one in this browser
 * before signing in and their profile has none yet (then that choice is saved to it).
 */
export function useSignedInLanguage(
  me: { user: { page_locale: string | null }; page_language: string } | null,
  save: (language: PageLanguage) => Promise<void>,
): void {
  const choice = useLanguageChoice();
  useEffect(() => {
    if (!me) return;
    choice.setSaver(save);
    const chosenHere = storedChoice();
    if (!me.user.page_locale && chosenHere) choice.choose(chosenHere);
    else choice.choose(resolvePageLanguage(me.page_language), { save: false });
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
        if (picked) choice.choose(picked);
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
