/** `GET /api/v1/openapi.json`: public, built once per process (it depends on code, not config). */
import Router from "@koa/router";
import { buildOpenApiDocument } from "./document";

export const OPENAPI_PATH = "/api/v1/openapi.json";

export function openApiRoutes(): Router {
  const router = new Router();
  let document: string | undefined;
  router.get(OPENAPI_PATH, (ctx) => {
    document ??= JSON.stringify(buildOpenApiDocument());
    ctx.type = "application/json";
    ctx.body = document;
  });
  return router;
}
