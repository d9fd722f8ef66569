/**
 * Serves the browser client built into web/dist (scripts/build-web.ts): the employee chat at `/`,
 * the admin console at `/admin`, and their hashed assets under `/app/` (the chunks they load later,
 * such as a page language's catalog, under `/app/chunks/`). Pages carry a strict
 * Content-Security-Policy (scripts and styles from this origin only, no inline code; sockets back
 * to this host), so even text that slipped past the Markdown sanitiser could not run.
 * Everything else falls through to the API and Bull Board untouched.
 */
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Middleware } from "koa";
import { acceptedTags, type PageLanguage, resolvePageLanguage } from "../lib/page-language";
import { Refusal } from "../lib/refusal";
import { CATALOGS } from "../web/src/lib/i18n/catalog";

export const WEB_DIST = fileURLToPath(new URL("../web/dist", import.meta.url));

const PAGES: Record<string, string> = { "/": "index.html", "/admin": "admin.html", "/admin/": "admin.html" };
/** Built asset names: `[name]-[hash].ext` (and their source maps), at the top or in `chunks/`; no other slash, no `..`. */
const ASSET = /^\/app\/((?:chunks\/)?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9]+)+)$/;
const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".txt": "text/plain; charset=utf-8",
};

/** `connect-src 'self'` covers same-origin WebSockets in current browsers; the explicit ws(s) origin covers older ones. */
export function contentSecurityPolicy(host: string): string {
  const sockets = /^[A-Za-z0-9.:[\]-]+$/.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join("; ");
}

/** The pages' own policy; nosniff, X-Frame-Options and Referrer-Policy come with every response (middleware/security-headers.ts). */
function setPageHeaders(ctx: Context): void {
  ctx.set("Content-Security-Policy", contentSecurityPolicy(ctx.host));
}

/** The built page (written with `lang="en"`) in the reader's language: the `lang` attribute screen readers and hyphenation follow. */
export function withLanguage(html: string, language: PageLanguage): string {
  return html
    .replace(/<html lang="[a-z]{2}">/, `<html lang="${language}">`)
    .replace(/<noscript>[^<]*<\/noscript>/, `<noscript>${CATALOGS[language]["page.noscript"]}</noscript>`);
}

async function readBuilt(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(join(WEB_DIST, file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export function serveWeb(): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") return next();
    const page = PAGES[ctx.path];
    if (page) {
      const html = await readBuilt(page);
      if (!html)
        throw new Refusal("unavailable", "WEB_NOT_BUILT", "The browser client is not built yet: run `npm run build:web` (npm start and npm test build it)");
      setPageHeaders(ctx);
      // Pages name the current hashed assets, so they are always revalidated.
      ctx.set("Cache-Control", "no-cache");
      // Before the script knows who signs in, the page's language is the browser's (the script then follows the person's).
      ctx.set("Vary", "Accept-Language");
      ctx.type = "text/html; charset=utf-8";
      ctx.body = withLanguage(html.toString("utf8"), resolvePageLanguage(acceptedTags(ctx.get("accept-language"))));
      return;
    }
    const asset = ASSET.exec(ctx.path);
    if (!asset) return next();
    const name = asset[1]!;
    const type = CONTENT_TYPES[extname(name)];
    const bytes = type ? await readBuilt(join("app", name)) : undefined;
    if (!type || !bytes) throw new Refusal("not_found", "NOT_FOUND", `No asset ${ctx.path}`);
    // Names carry a content hash: a changed file gets a new name, so this one never changes.
    ctx.set("Cache-Control", "public, max-age=31536000, immutable");
    ctx.type = type;
    ctx.body = bytes;
  };
}
