/**
 * The employee chat in real Chromium against the real stack (scripted model): sign in, ask and
 * watch the answer stream with its badge and citations, follow a suggestion, see a reasoning
 * model's thinking collapsed apart from its answer, survive a dropped connection mid-answer, switch sessions, render a hostile answer inert, and fit a 360 px phone.
 */
import { mkdirSync } from "node:fs";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { api } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { RateLimiter } from "../../server/middleware/rate-limit";
import { STEP_DOWN_MARKER } from "../../workers/tutor/step-down";
import { CATALOGS } from "../../web/src/lib/i18n/catalog";
import { THINKING_SENTINEL } from "../harness/scripted-reasoning";
import { freshEmployee, removeFreshEmployees, scriptedResponder } from "../workers/tutor/helpers";
import { answerStreaming, launchBrowser, openPage, signInAs, type WatchedPage } from "./browser";

// Globals of the page: the callbacks given to page.evaluate/waitForFunction run in Chromium, not in Node.
declare const document: any, sessionStorage: any, window: any, MutationObserver: any;

const QUESTION = "How many days do customers have to return an item?";

/** The newest answer bubble once it has finished streaming. */
async function lastAnswerDone(page: Page, timeout = 20_000) {
  const answer = page.locator("li.msg.assistant").last();
  await page.waitForFunction(
    () => {
      const all = document.querySelectorAll("li.msg.assistant");
      const last = all[all.length - 1];
      return last !== undefined && last.getAttribute("aria-busy") === "false";
    },
    undefined,
    { timeout },
  );
  return answer;
}

async function ask(page: Page, text: string): Promise<void> {
  const input = page.getByLabel("Message", { exact: true });
  await input.fill(text);
  await input.press("Enter");
}

async function storedAnswer(stack: Stack, token: string, sessionId: string, turnId: string): Promise<string> {
  const page = await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token });
  return page.body.messages.find((m: { role: string; turn_id: string }) => m.role === "assistant" && m.turn_id === turnId).content;
}

/** The page languages whose catalog chunk (`/app/chunks/<language>-<hash>.js`) the page requests, in order. */
function catalogChunksFetched(page: Page): Set<string> {
  const languages = new Set<string>();
  page.on("request", (request) => {
    const language = /\/app\/chunks\/([a-z]{2})-[A-Z0-9]+\.js$/.exec(new URL(request.url()).pathname)?.[1];
    if (language) languages.add(language);
  });
  return languages;
}

describe("web: the employee chat in Chromium", function () {
  this.timeout(90_000);
  let stack: Stack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;

  before(async function () {
    this.timeout(180_000);
    [stack, browser] = await Promise.all([useStack(), launchBrowser()]);
    stack.llm.reset();
    watched = await openPage(browser);
    page = watched.page;
    await signInAs(page, stack.baseUrl, "employee@example.com");
  });

  after(async () => {
    stack.llm.reset();
    await browser?.close();
    await removeFreshEmployees(stack);
  });

  afterEach(function () {
    // Every step: nothing logged as an error, nothing popped up except delete confirmations.
    expect(watched.consoleErrors, "console errors").to.deep.equal([]);
    expect(
      watched.dialogs.filter((d) => !d.startsWith("confirm")),
      "dialogs",
    ).to.deep.equal([]);
  });

  it("signs in from the demo-user list and says who is signed in", async () => {
    expect(await page.locator(".topbar .who").textContent()).to.include("Eli Employee");
    expect(await page.evaluate(() => sessionStorage.getItem("skillnet.token")))
      .to.be.a("string")
      .with.length.greaterThan(20);
  });

  it("streams the answer token by token, shows the rung badge as soon as it is known, then citations the markers link to", async () => {
    stack.llm.setTokenDelay(25);
    await ask(page, QUESTION);
    const answer = page.locator("li.msg.assistant").last();
    // Mid-stream: some text, still busy, and the badge already there (grounding comes before tokens).
    await answerStreaming(page);
    const early = (await answer.locator(".answer-text").textContent()) ?? "";
    expect(await answer.locator(".badge[data-rung]").getAttribute("data-rung")).to.equal("chunks");
    expect(await answer.locator(".badge[data-rung]").textContent()).to.equal("company source");

    await lastAnswerDone(page);
    const full = (await answer.locator(".answer-text").textContent()) ?? "";
    expect(full.length, "more text arrived after the first tokens").to.be.greaterThan(early.length);
    expect(full.startsWith(early.trim().slice(0, 20)), `early: ${JSON.stringify(early)}\nfull: ${JSON.stringify(full)}`).to.equal(true);

    const citations = answer.locator(".citations li");
    expect(await citations.count()).to.be.greaterThan(0);
    const marker = answer.locator(".answer-text a.cite-marker").first();
    const target = (await marker.getAttribute("href"))!.slice(1);
    expect(await answer.locator(`.citations li[id="${target}"]`).count(), "[n] links to its citation").to.equal(1);
    expect(await answer.locator(".citations").textContent()).to.include("Returns Policy Manual");
    stack.llm.setTokenDelay(0);
  });

  it("changes the badge to general knowledge while streaming, without citations, when the model says its sources do not answer", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    stack.llm.setResponder(
      scriptedResponder({
        generation: () => `${STEP_DOWN_MARKER} This is general knowledge, not company material: returns usually take a month [1]. ${words}.`,
      }),
    );
    stack.llm.setTokenDelay(25);
    const before = await page.locator("li.msg.assistant").count();
    await ask(page, QUESTION);
    // Mid-stream, from the live events alone: the new bubble is busy, has text, and already says general knowledge.
    await page.waitForFunction(
      (count) => {
        const all = document.querySelectorAll("li.msg.assistant");
        const last = all[all.length - 1];
        return all.length > count && last?.getAttribute("aria-busy") === "true" && (last.querySelector(".answer-text")?.textContent ?? "").length > 0;
      },
      before,
      { timeout: 20_000 },
    );
    const answer = page.locator("li.msg.assistant").last();
    expect(await answer.locator(".badge[data-rung]").getAttribute("data-rung")).to.equal("general");
    expect(await answer.locator(".badge[data-rung]").textContent()).to.equal("general knowledge");
    stack.llm.setTokenDelay(0);
    await lastAnswerDone(page);
    const text = (await answer.locator(".answer-text").textContent()) ?? "";
    expect(text).to.include("This is general knowledge").and.not.include(STEP_DOWN_MARKER).and.not.include("[1]");
    expect(await answer.locator(".citations li").count()).to.equal(0);
    expect(await answer.locator(".badge[data-rung]").getAttribute("data-rung")).to.equal("general");
    stack.llm.reset();
  });

  it("sends a suggestion chip as the next message", async () => {
    const chip = page.locator(".suggestions .chip").first();
    const text = (await chip.textContent())!;
    const before = await page.locator("li.msg.user").count();
    await chip.click();
    await page.locator("li.msg.user").nth(before).waitFor();
    expect(await page.locator("li.msg.user").nth(before).textContent()).to.include(text);
    await page.waitForFunction((n) => document.querySelectorAll("li.msg.assistant").length > n, before);
    const answer = await lastAnswerDone(page);
    expect(((await answer.locator(".answer-text").textContent()) ?? "").length).to.be.greaterThan(0);
    if (process.env.SCREENSHOTS) {
      mkdirSync("docs/screenshots", { recursive: true });
      await page.screenshot({ path: "docs/screenshots/chat.png" });
    }
  });

  it("shows a reasoning model's thinking collapsed above its answer, opens it on a click, and keeps it out of the answer", async () => {
    expect(await page.locator("details.reasoning").count(), "no disclosure for a model that does not think").to.equal(0);
    stack.llm.setReasoning({ as: "think" });
    stack.llm.setTokenDelay(4);
    await page.locator(".new-session").click();
    await ask(page, "How long is the returns window for customers?");
    const answer = page.locator("li.msg.assistant").last();
    const disclosure = answer.locator("details.reasoning");
    await disclosure.waitFor({ timeout: 20_000 });
    expect(await disclosure.evaluate((element) => element.open), "collapsed while it streams").to.equal(false);
    expect(await answer.locator(".reasoning-text").isVisible()).to.equal(false);
    await lastAnswerDone(page);
    stack.llm.setTokenDelay(0);
    expect(await disclosure.evaluate((element) => element.open), "still collapsed once answered").to.equal(false);
    expect(await disclosure.locator("summary").textContent()).to.equal("Reasoning");
    const text = (await answer.locator(".answer-text").textContent()) ?? "";
    expect(text).to.contain("30").and.not.contain(THINKING_SENTINEL);
    expect(text).to.not.contain("think>");
    await disclosure.locator("summary").click();
    expect(await answer.locator(".reasoning-text").isVisible()).to.equal(true);
    expect(await answer.locator(".reasoning-text").textContent())
      .to.contain(THINKING_SENTINEL)
      .and.contain('{"intent": "off_topic"}');
    const token = (await page.evaluate(() => sessionStorage.getItem("skillnet.token")))!;
    const sessionId = (await api(stack.baseUrl, "GET", "/api/v1/chat/sessions?agent_type=tutor", { token })).body.sessions[0].id;
    expect(await storedAnswer(stack, token, sessionId, (await answer.getAttribute("data-turn-id"))!)).to.not.contain(THINKING_SENTINEL);
    stack.llm.reset();
    // The workers' client learnt the scripted model thinks: the next tests see it as it was.
    stack.workers.deps.llm.reasoningModels.clear();
  });

  it("resumes an answer after the connection drops mid-stream: the final text equals the stored answer, once", async () => {
    const words = Array.from({ length: 70 }, (_, i) => `word${i}`);
    const scripted = `Returns are accepted within thirty days; ${words.join(" ")} end.`;
    stack.llm.setResponder(scriptedResponder({ generation: () => scripted }));
    stack.llm.setTokenDelay(40);
    await page.locator(".new-session").click();
    await ask(page, "Tell me about the returns window in detail");
    await page.waitForFunction(() => ([...document.querySelectorAll("li.msg.assistant .answer-text")].pop()?.textContent ?? "").length > 30, undefined, {
      timeout: 20_000,
    });

    await watched.context.setOffline(true);
    await page.locator(".topbar .connection.offline").waitFor({ timeout: 5_000 });
    const whileOffline = (await page.locator("li.msg.assistant .answer-text").last().textContent()) ?? "";
    await page.waitForTimeout(1_200); // the worker keeps streaming into the void
    expect((await page.locator("li.msg.assistant .answer-text").last().textContent()) ?? "", "nothing arrives while offline").to.equal(whileOffline);
    await watched.context.setOffline(false);
    await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });

    const answer = await lastAnswerDone(page, 30_000);
    const shown = ((await answer.locator(".answer-text").textContent()) ?? "").trim();
    const token = await page.evaluate(() => sessionStorage.getItem("skillnet.token"));
    const sessions = await api(stack.baseUrl, "GET", "/api/v1/chat/sessions?agent_type=tutor", { token: token! });
    const sessionId = sessions.body.sessions[0].id;
    const turnId = (await answer.getAttribute("data-turn-id"))!;
    expect(shown).to.equal((await storedAnswer(stack, token!, sessionId, turnId)).trim());
    expect(shown).to.equal(scripted);
    expect(shown.split("word42 ").length - 1, "no text repeated").to.equal(1);
    stack.llm.reset();
  });

  it("stops an answer mid-stream with Stop: the partial text stays, marked stopped, and is what was stored", async () => {
    const words = Array.from({ length: 120 }, (_, i) => `part${i}`);
    stack.llm.setResponder(scriptedResponder({ generation: () => `Stopping test: ${words.join(" ")}.` }));
    stack.llm.setTokenDelay(60);
    await page.locator(".new-session").click();
    await ask(page, "Give me a very long answer about returns");
    await page.waitForFunction(() => ([...document.querySelectorAll("li.msg.assistant .answer-text")].pop()?.textContent ?? "").length > 20, undefined, {
      timeout: 20_000,
    });
    await page.getByRole("button", { name: "Stop" }).click();
    const answer = await lastAnswerDone(page);
    await answer.locator(".badge.stopped").waitFor();
    expect(await page.getByRole("button", { name: "Stop" }).count(), "Stop goes away once the turn ended").to.equal(0);
    const shown = ((await answer.locator(".answer-text").textContent()) ?? "").trim();
    expect(shown.length).to.be.greaterThan(0);
    expect(shown).not.to.include("part119");
    const token = (await page.evaluate(() => sessionStorage.getItem("skillnet.token")))!;
    const sessionId = (await api(stack.baseUrl, "GET", "/api/v1/chat/sessions?agent_type=tutor", { token })).body.sessions[0].id;
    const stored = (await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${sessionId}/messages`, { token })).body.messages.find(
      (m: { role: string }) => m.role === "assistant",
    );
    expect(stored.status).to.equal("cancelled");
    expect(stored.content.trim()).to.equal(shown);
    stack.llm.reset();
  });

  it("switches between sessions and shows each one's history", async () => {
    const token = (await page.evaluate(() => sessionStorage.getItem("skillnet.token")))!;
    const sessions = (await api(stack.baseUrl, "GET", "/api/v1/chat/sessions?agent_type=tutor", { token })).body.sessions as Array<{
      id: string;
      title: string;
    }>;
    expect(sessions.length).to.be.at.least(2);
    for (const session of [sessions[1]!, sessions[0]!]) {
      await page
        .locator(".session-open", { hasText: session.title.slice(0, 30) })
        .first()
        .click();
      const stored = (await api(stack.baseUrl, "GET", `/api/v1/chat/sessions/${session.id}/messages`, { token })).body.messages as Array<{
        role: string;
        content: string;
      }>;
      const firstUser = stored.find((m) => m.role === "user")!;
      await page
        .locator("li.msg.user", { hasText: firstUser.content.slice(0, 40) })
        .first()
        .waitFor({ timeout: 10_000 });
      expect(await page.locator("li.msg").count()).to.equal(stored.length);
      expect(await page.locator(".session-open[aria-current='true']").textContent()).to.equal(session.title);
    }
  });

  it("renders a hostile answer as inert text: no script runs, no image loads, no javascript: link", async () => {
    const hostile = "Look: <img src=x onerror=alert(1)> and [click me](javascript:alert(2)) <script>alert(3)</script> ![pic](x) done.";
    stack.llm.setResponder(scriptedResponder({ generation: () => hostile }));
    await page.locator(".new-session").click();
    await ask(page, "Show me something dangerous");
    const answer = await lastAnswerDone(page);
    const html = await answer.innerHTML();
    expect(await page.locator("img").count(), "no img element at all").to.equal(0);
    expect(await page.locator("[onerror], script:not([src])").count()).to.equal(0);
    expect(html).not.to.match(/javascript:/i);
    expect(await answer.locator(".answer-text").textContent()).to.include("<img src=x onerror=alert(1)>");
    await answer.locator("a", { hasText: "click me" }).click();
    await page.waitForTimeout(300);
    expect(
      watched.dialogs.filter((d) => d.startsWith("alert")),
      "no alert fired",
    ).to.deep.equal([]);
    stack.llm.reset();
  });

  it("deletes a session from the list", async () => {
    const count = await page.locator(".session-open").count();
    await page.locator(".session-delete").first().click();
    await page.waitForFunction((n) => document.querySelectorAll(".session-open").length === n - 1, count);
    expect(watched.dialogs.some((d) => d.startsWith("confirm"))).to.equal(true);
  });

  it("explains refusals in words with what to do: too long, model unavailable, rate limited (text kept)", async () => {
    const learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
    const other = await openPage(browser);
    try {
      await signInAs(other.page, stack.baseUrl, learner.email);
      const input = other.page.getByLabel("Message", { exact: true });
      await input.fill("x".repeat(10_001));
      expect(await other.page.locator("#message-too-long").textContent()).to.include("at most 10,000 characters");
      expect(await other.page.getByRole("button", { name: "Send" }).isDisabled()).to.equal(true);

      stack.llm.failModel("scripted-model", 503);
      await input.fill("Is the model there?");
      await input.press("Enter");
      const failed = other.page.locator("li.msg.assistant .alert");
      await failed.waitFor({ timeout: 45_000 });
      expect(await failed.textContent()).to.include("model is unavailable");
      stack.llm.failModel("scripted-model", null);

      // The caller's real per-user window, filled up in Redis as earlier messages would have.
      const limiter = new RateLimiter(stack.server.deps.redis);
      const fill = () =>
        limiter.consumeFor({ userId: learner.userId, orgId: stack.demo.orgId }, "tutor", {
          perUser: stack.config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE,
          perOrganisation: 1_000_000,
        });
      let admitted = 0;
      while (
        admitted <= stack.config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE &&
        (await fill().then(
          () => true,
          () => false,
        ))
      )
        admitted++;
      expect(admitted, "the window is full").to.be.lessThan(stack.config.rateLimits.RATE_LIMIT_TUTOR_PER_MINUTE + 1);
      await ask(other.page, "Am I over the limit?");
      const limited = other.page.locator(".chat > .alert");
      await limited.waitFor();
      expect(await limited.textContent()).to.match(/faster than allowed\. Try again in \d+ seconds/);
      expect(await input.inputValue(), "the refused text is given back").to.equal("Am I over the limit?");
      const refused = other.consoleErrors.findIndex((line) => line.includes("status of 429"));
      expect(refused, "Chromium logs the 429 the test provoked").to.be.at.least(0);
      other.consoleErrors.splice(refused, 1);

      expect(other.consoleErrors).to.deep.equal([]);
    } finally {
      stack.llm.failModel("scripted-model", null);
      await other.context.close();
    }
  });

  it("speaks French to a French browser from the sign-in page on, and German once switched, across a reload (saved to the profile)", async () => {
    const learner = await freshEmployee(stack, { locale: "fr" });
    const french = await openPage(browser, undefined, "fr-FR");
    try {
      const { page: fr } = french;
      const catalogsFetched = catalogChunksFetched(fr);
      // The first words the page draws, whenever that is: French from the first, not English then French.
      await fr.addInitScript(() => {
        new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
          const text = document.getElementById("root")?.innerText.trim();
          if (!text) return;
          window.firstDrawn = text;
          observer.disconnect();
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await fr.goto(stack.baseUrl);
      await fr.getByRole("heading", { name: "Tuteur : connexion" }).waitFor();
      const firstDrawn: string = await fr.evaluate(() => window.firstDrawn);
      const drawn = (words: typeof CATALOGS.en) => [words["common.loading"], words["signIn.title.tutor"]].some((text) => firstDrawn.includes(text));
      expect({ french: drawn(CATALOGS.fr), english: drawn(CATALOGS.en) }, firstDrawn).to.deep.equal({ french: true, english: false });
      expect(await fr.locator("html").getAttribute("lang")).to.equal("fr");
      await fr.getByLabel("E-mail professionnel").waitFor();
      await fr.evaluate((token: string) => sessionStorage.setItem("skillnet.token", token), learner.token);
      await fr.reload();
      await fr.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
      expect(await fr.getByRole("button", { name: "Se déconnecter" }).count()).to.equal(1);
      const input = fr.getByLabel("Message", { exact: true });
      expect(await input.getAttribute("placeholder")).to.equal("Posez une question… (Entrée pour envoyer, Maj+Entrée pour aller à la ligne)");
      await input.fill(QUESTION);
      await input.press("Enter");
      const answer = await lastAnswerDone(fr);
      expect(await answer.locator(".badge[data-rung]").textContent()).to.be.oneOf(["source de l’entreprise", "document entier", "connaissances générales"]);
      await answer.getByRole("button", { name: "Utile", exact: true }).waitFor();

      expect([...catalogsFetched], "German is fetched when chosen, not before").to.deep.equal(["fr"]);
      // The choice is saved once German's catalog is here and the page switched: wait for that request, not only the page.
      const saved = fr.waitForResponse((response) => response.request().method() === "PATCH" && new URL(response.url()).pathname === "/api/v1/me");
      await fr.locator("select.language-switch").selectOption("de");
      await fr.getByRole("button", { name: "Abmelden" }).waitFor();
      expect([...catalogsFetched]).to.deep.equal(["fr", "de"]);
      expect(await fr.locator("html").getAttribute("lang")).to.equal("de");
      await fr.waitForFunction(() => document.title === "skillnet Tutor");
      // Saved to the profile, so it follows the person to another browser: not only this one's storage.
      expect((await saved).status()).to.equal(200);
      const me = await api(stack.baseUrl, "GET", "/api/v1/me", { token: learner.token, headers: { "accept-language": "fr-FR" } });
      expect(me.body.user.page_locale).to.equal("de");
      expect(me.body.page_language).to.equal("de");
      await fr.reload();
      await fr.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
      await fr.getByRole("button", { name: "Abmelden" }).waitFor();
      expect(await fr.getByLabel("Nachricht", { exact: true }).getAttribute("placeholder")).to.match(/^Stellen Sie eine Frage/);

      // A catalog the network fails to bring: the page stays in German, whole, and the switch says so.
      await fr.route("**/app/chunks/it-*.js", (route) => route.abort("failed"));
      const warned = fr.waitForEvent("console", (message) => message.type() === "warning" && message.text().includes('"it" catalog could not be fetched'));
      await fr.locator("select.language-switch").selectOption("it");
      await warned;
      await fr.waitForFunction(() => document.querySelector("select.language-switch").value === "de");
      expect(await fr.locator("html").getAttribute("lang")).to.equal("de");
      expect(await fr.getByRole("button", { name: "Abmelden" }).count()).to.equal(1);
      const failedFetch = french.consoleErrors.findIndex((line) => line.includes("net::ERR_FAILED"));
      expect(failedFetch, "Chromium logs the fetch the test failed").to.be.at.least(0);
      french.consoleErrors.splice(failedFetch, 1);
      expect(french.consoleErrors).to.deep.equal([]);
    } finally {
      await french.context.close();
    }
  });

  it("reads in each of the six page languages, chosen from the browser's: the sign-in page, then the tutor page", async () => {
    const learner = await freshEmployee(stack, {});
    for (const [browserTag, language] of [
      ["en-GB", "en"],
      ["es-ES", "es"],
      ["fr-CA", "fr"],
      ["de-AT", "de"],
      ["pt-PT", "pt"],
      ["it-IT", "it"],
    ] as const) {
      const words = CATALOGS[language];
      const opened = await openPage(browser, undefined, browserTag);
      const catalogsFetched = catalogChunksFetched(opened.page);
      try {
        const { page } = opened;
        await page.goto(stack.baseUrl);
        await page.getByRole("heading", { name: words["signIn.title.tutor"] }).waitFor();
        expect(await page.locator("html").getAttribute("lang"), browserTag).to.equal(language);
        await page.getByLabel(words["signIn.workEmail"]).waitFor();
        await page.evaluate((token: string) => sessionStorage.setItem("skillnet.token", token), learner.token);
        await page.reload();
        await page.locator(".topbar .connection.connected").waitFor({ timeout: 15_000 });
        expect(await page.getByRole("button", { name: words["shell.signOut"], exact: true }).count(), browserTag).to.equal(1);
        expect(await page.locator("#message-input").getAttribute("placeholder"), browserTag).to.equal(words["chat.placeholder"]);
        // Nothing left in English on a page in another language: the English words for the same two places are absent.
        if (language !== "en") expect(await page.getByRole("button", { name: CATALOGS.en["shell.signOut"], exact: true }).count(), browserTag).to.equal(0);
        // Only the reader's catalog came over the network: English is in the page's bundle, each other language a chunk of its own.
        expect([...catalogsFetched], browserTag).to.deep.equal(language === "en" ? [] : [language]);
        expect(opened.consoleErrors, browserTag).to.deep.equal([]);
      } finally {
        await opened.context.close();
      }
    }
  });

  it("fits a 360 px phone without horizontal scrolling", async () => {
    const phone = await openPage(browser, { width: 360, height: 740 });
    try {
      await signInAs(phone.page, stack.baseUrl, "employee@example.com");
      await phone.page.locator(".toggle-sessions").click();
      // Newest first: the session this suite asked in (the demo seed has an older one of the same title).
      await phone.page.locator(".session-open", { hasText: "How many days" }).first().click();
      await phone.page.locator("li.msg.assistant").first().waitFor();
      const width = await phone.page.evaluate(() => document.scrollingElement!.scrollWidth);
      expect(width).to.be.at.most(360);
      if (process.env.SCREENSHOTS) {
        mkdirSync("docs/screenshots", { recursive: true });
        await phone.page.evaluate(() => window.scrollTo(0, 0));
        await phone.page.screenshot({ path: "docs/screenshots/chat-360.png" });
      }
      expect(phone.consoleErrors).to.deep.equal([]);
    } finally {
      await phone.context.close();
    }
  });
});
