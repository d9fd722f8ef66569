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

/** Builds the client once per run (a few hundred ms), then starts Chromium. */
export async function launchBrowser(): Promise<Browser> {
  built ??= buildWeb();
  await built;
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run \`bash scripts/ensure-deps.sh --browser\` (npm test does) or apt-get install chromium`);
  // As root Chromium refuses to start inside its sandbox; the pages are our own.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
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
