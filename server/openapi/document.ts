/**
 * The OpenAPI 3.1 document of the HTTP API, built from the route definitions the server mounts
 * (server/routes/index.ts, `defineRoute`): request schemas are the zod objects the edge validates
 * with, converted by zod's own `toJSONSchema`, so the document cannot describe a route the server
 * does not have or a request it would parse differently.
 */
import { z } from "zod";
import type { Access, RouteSpec } from "../routes/define-route";
import { ERROR_CODES, type ErrorCode } from "./error-codes";
import { errorBody } from "./responses";
import { TOKEN_REFUSAL_CODES } from "../auth/token-claims";
import { scimErrorBody } from "../routes/scim/schema";

type JsonSchema = Record<string, unknown>;

/** A request schema as the client writes it (before defaults and transforms). */
export function requestJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return json;
}

function responseJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchema;
  return json;
}

/** `/api/v1/chat/sessions/:id` → `/api/v1/chat/sessions/{id}`. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  public: [],
  bearer: [{ bearerAuth: [] }],
  admin: [{ bearerAuth: [] }],
  operator: [{ bearerAuth: [] }],
  metrics: [{ metricsToken: [] }],
  scim: [{ scimToken: [] }],
  integration: [{ integrationKey: [] }],
};

/** What a bearer route answers a refused token with: ours `UNAUTHORIZED`, an identity provider's a reason of its own. */
const BEARER_REFUSALS: readonly ErrorCode[] = TOKEN_REFUSAL_CODES;
/** What a SCIM route may answer besides success, each as a SCIM error message (RFC 7644 §3.12), not `{error}`. */
function scimErrorStatuses(route: RouteSpec): Record<number, string> {
  const statuses: Record<number, string> = {
    401: "No valid SCIM token.",
    429: "Over SCIM_RATE_LIMIT_PER_MINUTE for this token (Retry-After).",
    500: "Anything unexpected; the details go to the log.",
  };
  if (route.query || route.body) statuses[400] = "invalidFilter, invalidSyntax, invalidPath, invalidValue or noTarget, named in `scimType`.";
  if (route.params) statuses[404] = "No such resource in the token's organisation.";
  if (route.body) {
    statuses[409] = "uniqueness: the userName (email) or externalId belongs to someone else, or the group's displayName is taken.";
    statuses[413] = "The body is larger than 1 MB.";
    statuses[415] = "The body is not application/scim+json or application/json.";
  }
  return statuses;
}

/** The error codes a route can answer with: its own, plus those its access, input and limits imply. */
export function errorCodesOf(route: RouteSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.access === "integration")
    ["INTEGRATION_KEY_INVALID", "INTEGRATION_KEY_CREATOR_INACTIVE", "INTEGRATION_SCOPE_MISSING", "RATE_LIMITED"].forEach((code) =>
      codes.add(code as ErrorCode),
    );
  else if (route.access !== "public" && route.access !== "metrics") for (const code of BEARER_REFUSALS) codes.add(code);
  if (route.access === "admin" || route.access === "operator") codes.add("FORBIDDEN");
  if (route.params || route.query || route.body || route.form) codes.add("VALIDATION_ERROR");
  if (route.body) ["BAD_REQUEST", "PAYLOAD_TOO_LARGE"].forEach((code) => codes.add(code as ErrorCode));
  if (route.rateLimited) codes.add("RATE_LIMITED");
  if (route.idempotent) ["IDEMPOTENCY_IN_PROGRESS", "IDEMPOTENCY_KEY_REUSED"].forEach((code) => codes.add(code as ErrorCode));
  if (route.access !== "public" || route.body || route.form) ["SERVICE_UNAVAILABLE", "DATABASE_TIMEOUT"].forEach((code) => codes.add(code as ErrorCode));
  // Any route, while dev-login is on: a Host that is not this server's own name (DNS rebinding).
  codes.add("HOST_NOT_ALLOWED");
  codes.add("INTERNAL_ERROR");
  return [...codes];
}

function parameters(route: RouteSpec): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    for (const [name, field] of Object.entries(schema.shape)) {
      const required = where === "path" || !(field as z.ZodType).safeParse(undefined).success;
      list.push({ name, in: where, required, schema: requestJsonSchema(field as z.ZodType) });
    }
  }
  if (route.idempotent) {
    list.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1–255 printable ASCII characters. The same key and body within 24 h get the first 2xx answer again (header Idempotent-Replayed: true).",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  }
  return list;
}

function requestBody(route: RouteSpec): JsonSchema | undefined {
  if (route.body && route.access === "scim") {
    const schema = requestJsonSchema(route.body);
    return { required: true, content: { "application/scim+json": { schema }, "application/json": { schema } } };
  }
  if (route.body) return { required: true, content: { "application/json": { schema: requestJsonSchema(route.body) } } };
  if (route.rawBody) {
    const content = Object.fromEntries(
      route.rawBody.contentTypes.map((type) => [type, { schema: { type: "string", description: route.rawBody!.description } }]),
    );
    return { required: true, content };
  }
  if (!route.form) return undefined;
  const fields = requestJsonSchema(route.form.fields);
  if (route.form.type === "urlencoded") return { required: true, content: { "application/x-www-form-urlencoded": { schema: fields } } };
  const properties = { file: { type: "string", contentMediaType: "application/octet-stream" }, ...(fields.properties as JsonSchema) };
  return { required: true, content: { "multipart/form-data": { schema: { type: "object", properties, required: ["file"] } } } };
}

function responses(route: RouteSpec): JsonSchema {
  const out: JsonSchema = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const content = response.schema
      ? { [response.contentType ?? "application/json"]: { schema: responseJsonSchema(response.schema) } }
      : response.contentType
        ? { [response.contentType]: { schema: { type: "string" } } }
        : undefined;
    out[status] = { description: response.description, ...(content ? { content } : {}) };
  }
  if (route.access === "scim") {
    for (const [status, description] of Object.entries(scimErrorStatuses(route))) {
      out[status] = { description, content: { "application/scim+json": { schema: { $ref: "#/components/schemas/ScimError" } } } };
    }
    return out;
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].when}`).join("\n\n"),
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return out;
}

function operation(route: RouteSpec): JsonSchema {
  const params = parameters(route);
  const body = requestBody(route);
  return {
    operationId: `${route.method}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? "").toUpperCase())}`,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY[route.access],
    ...(route.scope ? { "x-required-scope": route.scope } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: responses(route),
  };
}

/** The whole document; the same for every caller and process, so it can be committed and cached. */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "skillnet-chat HTTP API",
      version: "v1",
      description:
        "Grounded tutor and confirm-before-write admin assistant. Turns are accepted over HTTP (202) and stream over Socket.IO " +
        "(see docs/socket-protocol.md). Every error is `{error: {code, message, …}}`.",
    },
    servers: [{ url: "/" }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "HS256 JWT with sub, org, role, iss, iat and exp." },
        metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN." },
        scimToken: { type: "http", scheme: "bearer", description: "An organisation's SCIM token (admin console, Provisioning); it names the organisation." },
        integrationKey: {
          type: "http",
          scheme: "bearer",
          description:
            "An organisation's integration key (`skn_…`, admin console, Integrations) with the scope the operation names; it names the organisation.",
        },
      },
      schemas: {
        Error: responseJsonSchema(errorBody),
        ScimError: responseJsonSchema(scimErrorBody),
        ErrorCode: { type: "string", enum: Object.keys(ERROR_CODES) },
      },
    },
  };
}
