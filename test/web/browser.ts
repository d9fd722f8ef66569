/**
 * Headless Debian Chromium (/usr/bin/chromium, installed by `npm test`'s set-up) driven by
 * playwright-core, which never downloads a browser. Each page records console errors, uncaught
 * exceptions and dialogs, so a test can assert the client stayed quiet and nothing ran `alert`.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { buildWeb } from "../../scripts/build-web";

export const CHROMIUM = "/usr/bin/chromium";

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  consoleErrors: string[];
  dialogs: string[];
}

let built: Promise<unknown> | undefined;

/**
 * One Chromium per test process, kept on `globalThis` (mocha can load a support module twice):
 * each suite used to start its own, a second or so of a stream's time apiece. Suites stay apart
 * by their contexts (openPage opens one per page); a browser that went away is started again.
 */
interface SharedChromium {
  starting?: Promise<Browser>;
}
const shared: SharedChromium = ((globalThis as { __skillnetTestBrowser?: SharedChromium }).__skillnetTestBrowser ??= {});

function chromiumOnce(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    return Promise.reject(new Error(`${CHROMIUM} is missing: run \`bash scripts/ensure-deps.sh --browser\` (npm test does) or apt-get install chromium`));
  shared.starting ??= chromium
    // As root Chromium refuses to start inside its sandbox; the pages are our own.
    .launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] })
    .then((browser) => {
      browser.on("disconnected", () => {
        shared.starting = undefined;
      });
      return browser;
    });
  const starting = shared.starting;
  starting.catch(() => {
    if (shared.starting === starting) shared.starting = undefined;
  });
  return starting;
}

/**
 * Builds the client once per run (a few hundred ms), then hands the suite the process's Chromium:
 * its `close()` closes the contexts (and so the pages) the suite opened, and leaves the browser to
 * the next suite; the root hooks close it after the run (closeSharedBrowser).
 */
export async function launchBrowser(): Promise<Browser> {
  built ??= buildWeb();
  await built;
  const browser = await chromiumOnce();
  const contexts = new Set<BrowserContext>();
  return new Proxy(browser, {
    get(target, key) {
      if (key === "newContext") {
        return async (...args: Parameters<Browser["newContext"]>) => {
          const context = await target.newContext(...args);
          contexts.add(context);
          return context;
        };
      }
      if (key === "newPage") {
        return async (...args: Parameters<Browser["newPage"]>) => {
          const page = await target.newPage(...args);
          contexts.add(page.context());
          return page;
        };
      }
      if (key === "close") {
        return async () => {
          await Promise.all([...contexts].map((context) => context.close().catch(() => undefined)));
          contexts.clear();
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Closes the process's Chromium, if a suite started it (the root hooks, after every test). */
export async function closeSharedBrowser(): Promise<void> {
  const starting = shared.starting;
  shared.starting = undefined;
  if (starting) await (await starting.catch(() => undefined))?.close().catch(() => undefined);
}

/** A page in a new context; `locale` (a BCP 47 tag) sets the browser's languages and its Accept-Language header. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 860 }, locale = "en-US"): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, locale });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`));
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    // Deleting asks for confirmation; an `alert` would be an injection that ran.
    void (dialog.type() === "confirm" ? dialog.accept() : dialog.dismiss());
  });
  return { page, context, consoleErrors, dialogs };
}

/** Signs in through the page's demo-user list (dev-login) and waits for the signed-in frame. */
export async function signInAs(page: Page, url: string, email: string): Promise<void> {
  await page.goto(url);
  await page.locator(`button[data-email="${email}"]`).click();
  await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
}

/** Signs a fresh user in by their token (the demo-user picker lists only the first 100 users). */
export async function signInWithToken(page: Page, baseUrl: string, token: string, path = "/"): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.evaluate(
    (value: string) =>
      (globalThis as unknown as { sessionStorage: { setItem(key: string, value: string): void } }).sessionStorage.setItem("skillnet.token", value),
    token,
  );
  await page.reload();
  await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
}

/** Resolves once the newest answer bubble is still streaming and already shows some text (mid-stream). */
export async function answerStreaming(page: Page, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    () => {
      // Runs in Chromium, where `document` is the page's.
      type Node = { getAttribute(name: string): string | null; querySelector(selector: string): { textContent: string | null } | null };
      const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<Node> } }).document;
      const last = Array.from(doc.querySelectorAll("li.msg.assistant")).pop();
      return last?.getAttribute("aria-busy") === "true" && (last.querySelector(".answer-text")?.textContent ?? "").length > 0;
    },
    undefined,
    { timeout },
  );
}
