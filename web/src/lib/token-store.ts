/** The signed-in token, kept for this browser tab's session only (sessionStorage), never in a URL. */
const KEY = "skillnet.token";

export const tokenStore = {
  get(): string | null {
    return sessionStorage.getItem(KEY);
  },
  set(token: string): void {
    sessionStorage.setItem(KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};
