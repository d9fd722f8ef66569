/**
 * The session a single sign-on started: `POST /api/v1/auth/refresh` trades the HttpOnly refresh
 * cookie (which this script cannot read) for an access token kept in memory, on load (so a
 * reload stays signed in), a minute before the token runs out, and once after a 401. Concurrent
 * callers share one request: the cookie is replaced on every use, and a spent one presented
 * twice would end the session.
 */
import { tokenStore } from "./token-store";

/** Sent on refresh and sign-out: a header another site's form cannot add (the server's CSRF check). */
const SAME_SITE_HEADERS = { "x-requested-with": "skillnet", "content-type": "application/json", accept: "application/json" };
const EARLY_MS = 60_000;

let inFlight: Promise<string | null> | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
/** Whether this tab's token came from the refresh cookie (and so can be refreshed). */
let cookieSession = false;

/** Set by the server beside the HttpOnly refresh cookie (and cleared with it); holds nothing secret. */
export function mayHaveSession(): boolean {
  return document.cookie.split("; ").includes("skillnet_signed_in=1");
}

export function hasCookieSession(): boolean {
  return cookieSession;
}

async function callRefresh(): Promise<string | null> {
  let response: Response;
  try {
    response = await fetch("/api/v1/auth/refresh", { method: "POST", headers: SAME_SITE_HEADERS, body: "{}", credentials: "same-origin" });
  } catch {
    return null;
  }
  if (!response.ok) {
    cookieSession = false;
    clearTimeout(timer);
    return null;
  }
  const body = (await response.json()) as { access_token: string; expires_in: number };
  cookieSession = true;
  tokenStore.set(body.access_token);
  clearTimeout(timer);
  timer = setTimeout(() => void refreshSession(), Math.max(5_000, body.expires_in * 1000 - EARLY_MS));
  return body.access_token;
}

/** A fresh access token from the refresh cookie, or null when there is no live session. */
export function refreshSession(): Promise<string | null> {
  inFlight ??= callRefresh().finally(() => {
    inFlight = null;
  });
  return inFlight;
}

/** Ends the session here (and, when the provider supports it, at the provider: the page goes there). */
export async function endSession(returnTo: "/" | "/admin"): Promise<string | null> {
  clearTimeout(timer);
  const wasCookieSession = cookieSession;
  cookieSession = false;
  tokenStore.clear();
  if (!wasCookieSession) return null;
  try {
    const response = await fetch("/api/v1/auth/sign-out", { method: "POST", headers: SAME_SITE_HEADERS, body: JSON.stringify({ return_to: returnTo }) });
    if (!response.ok) return null;
    return ((await response.json()) as { end_session_url: string | null }).end_session_url;
  } catch {
    return null;
  }
}
