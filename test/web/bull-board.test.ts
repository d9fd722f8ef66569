/**
 * Bull Board in real Chromium under the Content-Security-Policy the server now sends with it
 * (server/middleware/security-headers.ts): the operator signs in through the form at
 * /admin/login and the board renders its queues with no script or style blocked.
 */
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { login } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { launchBrowser, openPage } from "./browser";

describe("Bull Board in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
  });

  it("signs in by form and renders the queues with nothing blocked by its CSP", async () => {
    const { token } = await login(stack.baseUrl, "admin@example.com");
    const { page, context, consoleErrors } = await openPage(browser);
    const violations: string[] = [];
    const missing: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    try {
      const signIn = await page.goto(`${stack.baseUrl}/admin/login`);
      expect(signIn?.headers()["x-frame-options"]).to.equal("DENY");
      await page.locator('input[name="token"]').fill(token);
      await page.locator('button[type="submit"]').click();
      await page.waitForURL(/\/admin\/queues/);
      await page.getByText("maintenance").first().waitFor({ timeout: 20_000 });
      await page.getByText("tutor-generate").first().waitFor();
      // The board's Google font may be unreachable offline: a network error, not a policy violation.
      expect(violations, violations.join("\n")).to.deep.equal([]);
      // Chromium's own /favicon.ico request for the sign-in page 404s unseen by page events; every page request is checked here.
      expect(missing).to.deep.equal([]);
      expect(consoleErrors.filter((line) => !/fonts\.(googleapis|gstatic)\.com|net::ERR|status of 404/.test(line))).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
