/**
 * The public HTTP API as the browser uses it: JSON in and out, the bearer token from the tab's
 * session, and every failure as an ApiError carrying the API's stable `{code, message}`.
 */
import { t } from "./i18n";
import { hasCookieSession, refreshSession } from "./session";
import { tokenStore } from "./token-store";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** Seconds to wait before retrying, when the server said so (429, some 503s): the body's `retry_after`, else the Retry-After header. */
  get retryAfter(): number | undefined {
    const value = this.details.retry_after;
    return typeof value === "number" ? value : undefined;
  }
}

/** Called when the server rejects the token, so the page can return to sign-in. */
let onUnauthorized: (() => void) | undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export async function request<T>(method: string, path: string, body?: unknown | FormData, retried = false): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = tokenStore.get();
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: payload });
  } catch {
    throw new ApiError(0, "NETWORK_ERROR", t("error.network"));
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } & Record<string, unknown> } | undefined)?.error;
    const { code = `HTTP_${response.status}`, message = t("error.httpStatus", { status: response.status }), ...details } = error ?? {};
    // A single sign-on's token may have run out while the tab slept: refresh once from the cookie and try again.
    if (response.status === 401 && token && !retried && hasCookieSession() && (await refreshSession())) return request<T>(method, path, body, true);
    if (response.status === 401 && token) onUnauthorized?.();
    // A proxy in front may answer 429/503 with only the standard header and no JSON body.
    const header = Number(response.headers.get("retry-after"));
    if (details.retry_after === undefined && Number.isFinite(header) && header > 0) details.retry_after = header;
    throw new ApiError(response.status, code, message, details);
  }
  return parsed as T;
}

/** A non-JSON download (a file, a CSV) with the tab's token, refreshed once from the session cookie after a 401. */
export async function fetchWithToken(path: string): Promise<Response> {
  const send = () => fetch(path, { headers: { authorization: `Bearer ${tokenStore.get() ?? ""}` } });
  const response = await send();
  return response.status === 401 && hasCookieSession() && (await refreshSession()) ? send() : response;
}

export const api = {
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body?: unknown) => request<T>("POST", path, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, body),
  del: <T = void>(path: string) => request<T>("DELETE", path),
  upload: <T>(path: string, form: FormData) => request<T>("POST", path, form),
};
