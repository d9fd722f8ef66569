/**
 * The OpenAPI document and the routes cannot drift: every route mounted on the real app is
 * documented and every documented one is mounted; request schemas are the handlers' own; and
 * real responses (and refusals of input the document rules out) match what the document says.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type Koa from "koa";
import { z } from "zod";
import { postAdminChatBody, postChatBody } from "../../../server/routes/chat/schema";
import { patchDocumentBody, uploadFields } from "../../../server/routes/documents/schema";
import { devLoginBody } from "../../../server/routes/auth";
import { createApp } from "../../../server/app";
import { buildOpenApiDocument as buildFrom, errorCodesOf, openApiPath, requestJsonSchema } from "../../../server/openapi/document";
import { ERROR_CODES, type ErrorCode } from "../../../server/openapi/error-codes";
import type { ApiRoute } from "../../../server/routes/define-route";
import { API_ROUTES } from "../../../server/routes/index";
import { errorBody } from "../../../server/openapi/responses";
import { api, join, waitForTurnEnd } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { cleanUp, freshUser, type Person } from "../../workers/admin/helpers";

type Layer = { path: string; methods: string[] };

const buildOpenApiDocument = () => buildFrom(API_ROUTES);

/** `GET /api/v1/chat/sessions/:id`-style keys of every route the app's routers mount. */
function mountedRoutes(app: Koa): Set<string> {
  const mounted = new Set<string>();
  for (const middleware of app.middleware as Array<{ router?: { stack: Layer[] } }>) {
    for (const layer of middleware.router?.stack ?? []) {
      for (const method of layer.methods) {
        if (method === "HEAD") continue;
        // A router's "/" under a prefix mounts as "/prefix/" and answers "/prefix" too (strict: false).
        mounted.add(`${method} ${layer.path.length > 1 ? layer.path.replace(/\/$/, "") : layer.path}`);
      }
    }
  }
  return mounted;
}

const documentedKey = (route: ApiRoute): string => `${route.method.toUpperCase()} ${route.path}`;

function documented(method: string, path: string): ApiRoute {
  const route = API_ROUTES.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`${method} ${path} is not documented`);
  return route;
}

/** The real answer has a documented status and parses with that status's documented schema (or is a documented error). */
function expectDocumentedResponse(method: string, path: string, response: { status: number; body: any }): void {
  const route = documented(method, path);
  if (response.status >= 400) {
    expect(errorBody.safeParse(response.body).success, `${method} ${path} ${response.status}: not the documented error shape`).to.equal(true);
    const code = response.body.error.code as ErrorCode;
    expect(errorCodesOf(route), `${method} ${path} answered ${code}, which the document does not list`).to.include(code);
    expect(ERROR_CODES[code].status, `${code} is documented with another status`).to.equal(response.status);
    return;
  }
  const declared = route.responses[response.status];
  expect(declared, `${method} ${path} answered ${response.status}, which the document does not list`).to.not.equal(undefined);
  if (declared!.schema) {
    const parsed = declared!.schema.safeParse(response.body);
    const problems = parsed.success ? "" : z.prettifyError(parsed.error);
    expect(parsed.success, `${method} ${path} ${response.status} does not match its documented schema: ${problems}`).to.equal(true);
  }
}

describe("OpenAPI document (GET /api/v1/openapi.json)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let admin: Person;
  let employee: Person;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    admin = await freshUser(stack, { role: "admin" });
    employee = await freshUser(stack, { role: "employee" });
  });
  after(() => cleanUp(stack));

  it("is served without a token, as OpenAPI 3.1, and says what a client needs (written out here, not rebuilt)", async () => {
    const response = await api(stack.baseUrl, "GET", "/api/v1/openapi.json");
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    const doc = response.body;
    expect(doc.openapi).to.equal("3.1.0");
    expect(doc.components.securitySchemes.bearerAuth).to.include({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(doc.components.schemas.ErrorCode.enum).to.include.members(["VALIDATION_ERROR", "NOT_FOUND", "TURN_IN_PROGRESS", "QUEUE_UNAVAILABLE"]);

    const tutor = doc.paths["/api/v1/chat"].post;
    expect(tutor.security).to.deep.equal([{ bearerAuth: [] }]);
    expect(tutor.parameters.map((p: { name: string }) => p.name)).to.include("Idempotency-Key");
    const tutorBody = tutor.requestBody.content["application/json"].schema;
    expect(tutorBody.required).to.deep.equal(["message"]);
    expect(Object.keys(tutorBody.properties).sort()).to.deep.equal(["attachment_ids", "context", "message", "session_id"]);
    expect(tutorBody.properties.attachment_ids).to.include({ type: "array", maxItems: 5 });
    expect(tutorBody.properties.session_id).to.include({ type: "string", format: "uuid" });
    expect(tutorBody.properties.session_id.deprecated).to.equal(undefined);
    expect(tutorBody.properties.context.properties.session_id, "the tutor's old session field is marked deprecated").to.include({
      deprecated: true,
      format: "uuid",
    });
    expect(tutorBody.additionalProperties).to.equal(false);
    const started = tutor.responses["202"].content["application/json"].schema;
    expect(started.required.sort()).to.deep.equal(["message_id", "session_id", "turn_id"]);
    expect(tutor.responses["400"].description).to.include("VALIDATION_ERROR");
    expect(tutor.responses["404"].description).to.include("NOT_FOUND");

    const assistant = doc.paths["/api/v1/chat/admin"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(assistant.properties).sort()).to.deep.equal(["message", "session_id"]);
    expect(assistant.properties.session_id, "one session field, spelled the same on both chat endpoints").to.deep.equal(tutorBody.properties.session_id);
    expect(doc.paths["/api/v1/chat/admin"].post.responses["409"].description).to.include("TURN_IN_PROGRESS");
    expect(doc.paths["/api/v1/chat/sessions/{id}/messages"].get.parameters.find((p: { name: string }) => p.name === "id")).to.include({
      in: "path",
      required: true,
    });
    expect(doc.paths["/api/v1/documents"].post.requestBody.content).to.have.property("multipart/form-data");
    expect(doc.paths["/api/v1/documents"].get.responses).to.have.property("403");
    const attach = doc.paths["/api/v1/chat/attachments"].post;
    expect(attach.requestBody.content).to.have.property("multipart/form-data");
    expect(attach.responses["409"].description).to.include("ATTACHMENT_LIMIT");
    expect(attach.responses["413"].description).to.include("FILE_TOO_LARGE");
    expect(tutor.responses["409"].description).to.include("ATTACHMENT_FAILED");
    expect(doc.paths["/api/v1/chat/sessions/{id}/attachments"].get.responses).to.have.property("200");
  });

  it("documents every route the app mounts, and mounts every route it documents", () => {
    const mounted = mountedRoutes(createApp(stack.server.deps));
    const documentedRoutes = new Set(API_ROUTES.map(documentedKey));
    expect([...mounted].filter((key) => key.includes("/api/v1/")).length, "no /api/v1 routes found on the app: the walk is broken").to.be.greaterThan(20);
    expect(
      [...mounted].filter((key) => !documentedRoutes.has(key)),
      "mounted but not in the OpenAPI document",
    ).to.deep.equal([]);
    expect(
      [...documentedRoutes].filter((key) => !mounted.has(key)),
      "in the OpenAPI document but not mounted",
    ).to.deep.equal([]);
    expect(documentedRoutes.size, "a route is declared twice").to.equal(API_ROUTES.length);
  });

  it("describes request bodies with the very schemas the handlers validate with", () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, any>> };
    const body = (method: string, path: string, type = "application/json") => doc.paths[openApiPath(path)]![method]!.requestBody.content[type].schema;
    expect(body("post", "/api/v1/chat")).to.deep.equal(requestJsonSchema(postChatBody));
    expect(body("post", "/api/v1/chat/admin")).to.deep.equal(requestJsonSchema(postAdminChatBody));
    expect(body("patch", "/api/v1/documents/:id")).to.deep.equal(requestJsonSchema(patchDocumentBody));
    expect(body("post", "/api/v1/auth/dev-login")).to.deep.equal(requestJsonSchema(devLoginBody));
    const upload = body("post", "/api/v1/documents", "multipart/form-data");
    expect(upload.required).to.deep.equal(["file"]);
    expect(upload.properties).to.deep.include(requestJsonSchema(uploadFields).properties as object);
    // The strictness a client relies on survives the conversion.
    expect(body("post", "/api/v1/chat/admin").additionalProperties).to.equal(false);
    expect(body("post", "/api/v1/chat").properties.context.additionalProperties).to.equal(false);
  });

  it("refuses with 400 every path id and query value the document rules out", async () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, any>> };
    let checked = 0;
    // Integration routes are called with a key of every scope (revoked at the end).
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", {
      token: admin.token,
      body: { name: "OpenAPI input check", scopes: ["catalog:write", "documents:write", "usage:read", "people:read"] },
    });
    const integrationKey: string = created.body.key;
    for (const route of API_ROUTES) {
      // SCIM answers an unknown id with 404 (RFC 7644) and names schemas by URN; its hostile-input suite covers it (test/server/routes/scim/hostile.test.ts).
      if (route.access === "scim") continue;
      type Parameter = { name: string; in: string; schema: { format?: string; enum?: string[] } };
      const parameters: Parameter[] = doc.paths[openApiPath(route.path)]![route.method]!.parameters ?? [];
      // An integration names records by its own ids (`external_id`, free text the route checks); every other path id is a UUID.
      const pathIds = parameters.filter((p) => p.in === "path" && p.name !== "external_id");
      const enums = parameters.filter((p) => p.in === "query" && p.schema.enum);
      if (pathIds.length === 0 && enums.length === 0) continue;
      expect(
        pathIds.every((p) => p.schema.format === "uuid"),
        `${documentedKey(route)}: path ids are documented as UUIDs`,
      ).to.equal(true);
      const validPath = route.path.replace(/:[A-Za-z_]+/g, () => randomUUID());
      const attempts = [
        ...(pathIds.length > 0 ? [route.path.replace(/:[A-Za-z_]+/g, "not-a-uuid")] : []),
        ...enums.map((p) => `${validPath}?${p.name}=${encodeURIComponent(`not-${p.schema.enum!.join("-")}`)}`),
      ];
      for (const path of attempts) {
        const body = route.method === "patch" ? { restricted_course_id: null } : undefined;
        const token = route.access === "integration" ? integrationKey : admin.token;
        const response = await api(stack.baseUrl, route.method.toUpperCase(), path, { token, body });
        expect(response.status, `${route.method.toUpperCase()} ${path}`).to.equal(400);
        expect(errorBody.safeParse(response.body).success).to.equal(true);
        expect(response.body.error.code).to.equal("VALIDATION_ERROR");
        checked += 1;
        // Access is checked before input is read: a caller without a token learns nothing about the input rules.
        if (route.access !== "public") {
          const unsigned = await api(stack.baseUrl, route.method.toUpperCase(), path, { body });
          expect(unsigned.status, `${route.method.toUpperCase()} ${path} without a token`).to.equal(401);
        }
      }
    }
    expect(checked).to.be.greaterThan(12);
    await api(stack.baseUrl, "DELETE", `/api/v1/admin/integration-keys/${created.body.integration_key.id}`, { token: admin.token });
  });

  it("real responses match the documented status codes and schemas", async () => {
    const check = async (method: string, path: string, url: string, options: Parameters<typeof api>[3] = {}) => {
      const response = await api(stack.baseUrl, method.toUpperCase(), url, options);
      expectDocumentedResponse(method, path, response);
      return response;
    };
    await check("post", "/api/v1/auth/dev-login", "/api/v1/auth/dev-login", { body: { email: employee.email } });
    await check("get", "/api/v1/auth/demo-users", "/api/v1/auth/demo-users");
    await check("get", "/api/v1/me", "/api/v1/me", { token: admin.token });
    await check("get", "/api/v1/me", "/api/v1/me", { token: employee.token });
    await check("get", "/api/v1/learning/courses", "/api/v1/learning/courses", { token: admin.token });
    await check("get", "/healthz", "/healthz");
    await check("get", "/readyz", "/readyz");

    const question = { message: "How many days do customers have to return an item?" };
    const started = await check("post", "/api/v1/chat", "/api/v1/chat", { token: admin.token, body: question });
    await join(admin.socket, { sessionId: started.body.session_id });
    await waitForTurnEnd(admin.events, started.body.turn_id);
    await check("get", "/api/v1/chat/sessions", "/api/v1/chat/sessions?agent_type=tutor", { token: admin.token });
    const page = await check("get", "/api/v1/chat/sessions/:id/messages", `/api/v1/chat/sessions/${started.body.session_id}/messages`, { token: admin.token });
    expect(page.body.messages.map((m: { role: string }) => m.role)).to.deep.equal(["user", "assistant"]);
    const lateCancel = await check("post", "/api/v1/chat/turns/:id/cancel", `/api/v1/chat/turns/${started.body.turn_id}/cancel`, { token: admin.token });
    expect(lateCancel.body.error.code).to.equal("TURN_ALREADY_FINISHED");
    await check("delete", "/api/v1/chat/sessions/:id", `/api/v1/chat/sessions/${started.body.session_id}`, { token: admin.token });

    const documents = await check("get", "/api/v1/documents", "/api/v1/documents", { token: admin.token });
    expect(documents.body.documents.length).to.be.greaterThan(0);
    await check("get", "/api/v1/documents/:id", `/api/v1/documents/${documents.body.documents[0].id}`, { token: admin.token });
    await check("get", "/api/v1/admin/actions", "/api/v1/admin/actions", { token: admin.token });
    await check("post", "/api/v1/ops/board-code", "/api/v1/ops/board-code", { token: admin.token });

    // Refusals carry the documented error shape, and a code and status the route lists.
    const forbidden = await check("get", "/api/v1/documents", "/api/v1/documents", { token: employee.token });
    expect(forbidden.status).to.equal(403);
    const missing = await check("get", "/api/v1/admin/actions/:id", `/api/v1/admin/actions/${randomUUID()}`, { token: admin.token });
    expect(missing.status).to.equal(404);
    const unsigned = await check("get", "/api/v1/me", "/api/v1/me");
    expect(unsigned.status).to.equal(401);
    expect((buildOpenApiDocument() as any).paths["/api/v1/documents"].get.responses).to.have.property("403");
  });
});
