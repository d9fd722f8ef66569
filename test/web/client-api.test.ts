/**
 * The parts of the HTTP API the browser client needed and the serving of the client itself:
 * pages with a strict CSP, hashed assets and the chunks a page loads later (a page language's
 * catalog) cached for good, the course picker's catalogue (only usable courses), `/api/v1/me`,
 * and the demo-user list that exists only while dev-login is on.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { buildWeb } from "../../scripts/build-web";
import { createApp } from "../../server/app";
import { api, login } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { freshEmployee, removeFreshEmployees } from "../workers/tutor/helpers";
import { configWith } from "../support/tunables";

describe("web client: serving and the API it uses", function () {
  this.timeout(60_000);
  let stack: Stack;
  let employee: string;
  let admin: string;

  before(async function () {
    this.timeout(120_000);
    await buildWeb();
    stack = await useStack();
    employee = (await login(stack.baseUrl, "employee@example.com")).token;
    admin = (await login(stack.baseUrl, "admin@example.com")).token;
  });

  after(async () => removeFreshEmployees(stack));

  describe("pages and assets", () => {
    it("serves the chat at / and the console at /admin with a strict CSP and no caching of the page", async () => {
      for (const [path, script] of [
        ["/", /\/app\/chat-[A-Z0-9]+\.js/],
        ["/admin", /\/app\/admin-[A-Z0-9]+\.js/],
      ] as const) {
        const page = await api(stack.baseUrl, "GET", path);
        expect(page.status, path).to.equal(200);
        expect(page.headers.get("content-type")).to.equal("text/html; charset=utf-8");
        expect(page.headers.get("cache-control")).to.equal("no-cache");
        expect(String(page.body)).to.match(script);
        expect(String(page.body)).not.to.match(/<script>(?!<)/, "no inline script");
        const csp = page.headers.get("content-security-policy")!;
        expect(csp).to.include("script-src 'self'").and.to.include("connect-src 'self'").and.to.include("frame-ancestors 'none'");
        expect(csp).not.to.include("unsafe-inline");
        expect(page.headers.get("x-content-type-options")).to.equal("nosniff");
      }
    });

    it("writes the page's lang and noscript line in the browser's language, and varies the page on Accept-Language", async () => {
      const german = await api(stack.baseUrl, "GET", "/admin", { headers: { "accept-language": "zh-CN,de-AT;q=0.9,en;q=0.5" } });
      expect(String(german.body)).to.include('<html lang="de">').and.include("<noscript>Diese Seite benötigt JavaScript.</noscript>");
      expect(german.headers.get("vary")).to.match(/accept-language/i);
      const chinese = await api(stack.baseUrl, "GET", "/", { headers: { "accept-language": "zh-CN" } });
      expect(String(chinese.body)).to.include('<html lang="en">').and.include("<noscript>This page needs JavaScript.</noscript>");
    });

    it("serves hashed assets with their content type and a year-long immutable cache", async () => {
      const page = String((await api(stack.baseUrl, "GET", "/")).body);
      const script = /src="(\/app\/[^"]+\.js)"/.exec(page)![1]!;
      const style = /href="(\/app\/[^"]+\.css)"/.exec(page)![1]!;
      const js = await fetch(`${stack.baseUrl}${script}`);
      expect(js.status).to.equal(200);
      expect(js.headers.get("content-type")).to.equal("text/javascript; charset=utf-8");
      expect(js.headers.get("cache-control")).to.equal("public, max-age=31536000, immutable");
      const bundle = await js.text();
      expect(bundle.length).to.be.greaterThan(10_000);
      // The chunks the page loads later (a page language's catalog) and the one it preloads: served like the bundle.
      const french = /import\("\.\/(chunks\/fr-[A-Z0-9]+\.js)"\)/.exec(bundle)?.[1];
      const preloaded = /<link rel="modulepreload" href="(\/app\/chunks\/[^"]+\.js)">/.exec(page)?.[1];
      expect(french, "the bundle imports the French catalog as a chunk").to.be.a("string");
      for (const chunk of [`/app/${french}`, preloaded!]) {
        const response = await fetch(`${stack.baseUrl}${chunk}`);
        expect(response.status, chunk).to.equal(200);
        expect(response.headers.get("content-type"), chunk).to.equal("text/javascript; charset=utf-8");
        expect(response.headers.get("cache-control"), chunk).to.equal("public, max-age=31536000, immutable");
      }
      expect(await (await fetch(`${stack.baseUrl}/app/${french}`)).text()).to.include("Importations du catalogue");
      expect(bundle, "French words stay out of the page's bundle").not.to.include("Importations du catalogue");
      const css = await fetch(`${stack.baseUrl}${style}`);
      expect(css.headers.get("content-type")).to.equal("text/css; charset=utf-8");
    });

    it("answers 404 for unknown or escaping asset paths, and leaves Bull Board's routes alone", async () => {
      for (const path of [
        "/app/missing-ABC.js",
        "/app/..%2Fpackage.json",
        "/app/../package.json",
        "/app/chat.exe",
        "/app/chunks/missing-ABC.js",
        "/app/chunks/..%2F..%2Fpackage.json",
        "/app/chunks/nested/fr-ABC.js",
        "/app/src/fr-ABC.js",
      ]) {
        const response = await api(stack.baseUrl, "GET", path);
        expect(response.status, path).to.equal(404);
        expect(response.body.error.code).to.equal("NOT_FOUND");
      }
      expect((await api(stack.baseUrl, "GET", "/admin/queues")).status, "the board still wants a sign-in").to.equal(401);
      const signIn = await api(stack.baseUrl, "GET", "/admin/login");
      expect(signIn.status).to.equal(200);
      expect(String(signIn.body)).to.include("Sign in to Bull Board");
    });
  });

  describe("GET /api/v1/me", () => {
    it("tells an employee who they are and which model answers, without upload limits", async () => {
      const me = await api(stack.baseUrl, "GET", "/api/v1/me", { token: employee });
      expect(me.status).to.equal(200);
      expect(me.body.user).to.include({ email: "employee@example.com", role: "employee" });
      expect(me.body.organisation.name).to.equal("Acme Retail");
      expect(me.body.model).to.deep.equal({ name: "scripted-model", offline: false });
      expect(me.body.operator).to.equal(false);
      expect(me.body).not.to.have.property("uploads");
    });

    it("gives an admin the upload limits and says whether they may open Bull Board", async () => {
      const me = await api(stack.baseUrl, "GET", "/api/v1/me", { token: admin });
      expect(me.body.operator).to.equal(true);
      expect(me.body.uploads.max_bytes).to.equal(stack.config.server.UPLOAD_MAX_BYTES);
      expect(me.body.uploads.accepted_extensions).to.include.members([".pdf", ".docx", ".md", ".csv"]);
    });

    it("says which language to draw the pages in: the person's choice (PATCH, validated), else Accept-Language, else English", async () => {
      const learner = await freshEmployee(stack, { locale: "es" });
      const get = (acceptLanguage: string) => api(stack.baseUrl, "GET", "/api/v1/me", { token: learner.token, headers: { "accept-language": acceptLanguage } });
      // users.locale (Spanish, the tutor's fallback) does not choose the pages: the browser does.
      expect((await get("pt-BR,en;q=0.8")).body).to.deep.include({ page_language: "pt" });
      expect((await get("zh-CN")).body.page_language).to.equal("en");
      expect((await get("pt-BR")).body.user).to.include({ locale: "es", page_locale: null });
      const chosen = await api(stack.baseUrl, "PATCH", "/api/v1/me", {
        token: learner.token,
        body: { page_locale: "it" },
        headers: { "accept-language": "fr" },
      });
      expect(chosen.status).to.equal(200);
      expect(chosen.body).to.deep.equal({ page_locale: "it", page_language: "it" });
      expect((await get("pt-BR")).body).to.deep.include({ page_language: "it" });
      for (const body of [{ page_locale: "zh" }, { page_locale: "de-AT" }, { page_locale: "it", role: "admin" }, {}]) {
        const refused = await api(stack.baseUrl, "PATCH", "/api/v1/me", { token: learner.token, body });
        expect(refused.status, JSON.stringify(body)).to.equal(400);
        expect(refused.body.error.code).to.equal("VALIDATION_ERROR");
      }
      const forgotten = await api(stack.baseUrl, "PATCH", "/api/v1/me", {
        token: learner.token,
        body: { page_locale: null },
        headers: { "accept-language": "de" },
      });
      expect(forgotten.body).to.deep.equal({ page_locale: null, page_language: "de" });
      expect((await api(stack.baseUrl, "PATCH", "/api/v1/me", { body: { page_locale: "de" } })).status).to.equal(401);
    });

    it("refuses a caller without a token", async () => {
      const me = await api(stack.baseUrl, "GET", "/api/v1/me");
      expect(me.status).to.equal(401);
      expect(me.body.error.code).to.equal("UNAUTHORIZED");
    });
  });

  describe("GET /api/v1/learning/courses", () => {
    it("lists only the courses the employee may use, each with its lessons in order", async () => {
      const learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials"] });
      const response = await api(stack.baseUrl, "GET", "/api/v1/learning/courses", { token: learner.token });
      expect(response.status).to.equal(200);
      const courses = response.body.courses as Array<{ id: string; title: string; lessons: Array<{ id: string; title: string; module_title: string }> }>;
      expect(courses.map((c) => c.id)).to.deep.equal([DEMO_IDS.courseIds.returnsEssentials]);
      const lessons = await stack.server.deps
        .db("lessons as l")
        .join("modules as m", "m.id", "l.module_id")
        .where("l.course_id", DEMO_IDS.courseIds.returnsEssentials)
        .orderBy(["m.position", "l.position"])
        .select("l.id");
      expect(courses[0]!.lessons.map((l) => l.id)).to.deep.equal(lessons.map((l: { id: string }) => l.id));
      expect(courses[0]!.lessons[0]!.module_title).to.be.a("string").and.not.empty;

      // Whatever the catalogue offers, the chat accepts as context.
      const turn = await api(stack.baseUrl, "POST", "/api/v1/chat", {
        token: learner.token,
        body: { message: "What is the first step?", context: { course_id: courses[0]!.id, lesson_id: courses[0]!.lessons[0]!.id } },
      });
      expect(turn.status).to.equal(202);
    });

    it("is empty for an employee enrolled in nothing, leaves archived courses out, and needs a token", async () => {
      const nobody = await freshEmployee(stack);
      expect((await api(stack.baseUrl, "GET", "/api/v1/learning/courses", { token: nobody.token })).body.courses).to.deep.equal([]);

      const db = stack.server.deps.db;
      const [course] = await db("courses").insert({ org_id: DEMO_IDS.orgId, title: "Retired Tills", language: "en", archived_at: db.fn.now() }).returning("id");
      try {
        const learner = await freshEmployee(stack, { enrolIn: ["warehouseSafety"] });
        await db("enrollments").insert({ org_id: DEMO_IDS.orgId, user_id: learner.userId, course_id: course.id });
        const ids = (await api(stack.baseUrl, "GET", "/api/v1/learning/courses", { token: learner.token })).body.courses.map((c: { id: string }) => c.id);
        expect(ids).to.deep.equal([DEMO_IDS.courseIds.warehouseSafety]);
      } finally {
        await db("enrollments").where({ course_id: course.id }).delete();
        await db("courses").where({ id: course.id }).delete();
      }
      expect((await api(stack.baseUrl, "GET", "/api/v1/learning/courses")).status).to.equal(401);
    });
  });

  describe("GET /api/v1/auth/demo-users", () => {
    it("lists active demo users, admins first, while dev-login is on", async () => {
      const response = await api(stack.baseUrl, "GET", "/api/v1/auth/demo-users");
      expect(response.status).to.equal(200);
      const users = response.body.users as Array<{ email: string; role: string; name: string }>;
      expect(users[0]!.role).to.equal("admin");
      expect(users.map((u) => u.email)).to.include.members(["admin@example.com", "employee@example.com"]);
      expect(Object.keys(users[0]!).sort()).to.deep.equal(["department", "email", "name", "role"]);
    });

    it("does not exist with dev-login off, and then /api/v1/me reports the offline model plainly", async () => {
      const deps = { ...stack.server.deps, config: configWith(stack.config, { DEV_LOGIN_ENABLED: false, LLM_MODEL: "offline-extractive" }) };
      const server: Server = createServer(createApp(deps).callback());
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const listed = await api(base, "GET", "/api/v1/auth/demo-users");
        expect(listed.status).to.equal(404);
        expect(listed.body.error.code).to.equal("NOT_FOUND");
        const me = await api(base, "GET", "/api/v1/me", { token: employee });
        expect(me.body.model).to.deep.equal({ name: "offline-extractive", offline: true });
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
