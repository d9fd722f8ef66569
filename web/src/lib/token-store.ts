/**
 * The access token of this tab, never in a URL. After a single sign-on it lives only in memory:
 * the HttpOnly refresh cookie (web/src/lib/session.ts) mints a new one on reload and before it
 * runs out, so script on the page never holds anything long-lived. A dev-login token (the
 * embedded demo) is also kept in sessionStorage, as before, since the demo has no refresh cookie.
 */
const KEY = "skillnet.token";

let inMemory: string | null = null;

export const tokenStore = {
  get(): string | null {
    return inMemory ?? sessionStorage.getItem(KEY);
  },
  /** `persist`: keep it across reloads of this tab (dev-login only). */
  set(token: string, { persist = false } = {}): void {
    inMemory = token;
    if (persist) sessionStorage.setItem(KEY, token);
    else sessionStorage.removeItem(KEY);
  },
  clear(): void {
    inMemory = null;
    sessionStorage.removeItem(KEY);
  },
};
