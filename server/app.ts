/**
 * The Koa application: request ids, access logs, error mapping, JSON bodies, routes and Bull
 * Board. Built from explicit dependencies so tests run it in-process against real services.
 */
import { randomUUID } from "node:crypto";
import { bodyParser } from "@koa/bodyparser";
import Koa from "koa";
import { withRequestId } from "../lib/logger";
import { mountBullBoard } from "./bull-board";
import type { ServerDeps } from "./deps";
import { errorMiddleware } from "./errors";
import { hostGuard } from "./middleware/host-guard";
import { securityHeaders } from "./middleware/security-headers";
import { JSON_LIMIT_BYTES, mountRoutes, OWN_BODY_PREFIX } from "./routes/define-route";
import { scimFallback } from "./scim/request";
import { API_ROUTES } from "./routes/index";
import { serveWeb } from "./web";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function createApp(deps: ServerDeps): Koa {
  // X-Forwarded-* decide the client IP (dev-login rate limit) and HTTPS (Secure cookies); only a proxy may set them.
  // The client IP is read as many entries from the right as TRUST_PROXY counts proxies: what our own proxies appended, never what the client wrote.
  const app = new Koa({ proxy: deps.config.server.trustProxy, maxIpsCount: deps.config.server.trustProxyHops });
  const log = deps.log;

  app.use(async (ctx, next) => {
    // A proxy's id is kept so its logs and ours line up; anything that is not a plain token is replaced.
    const offered = ctx.get("x-request-id");
    const requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.set("X-Request-Id", requestId);
    const started = performance.now();
    await withRequestId(requestId, async () => {
      try {
        await next();
      } finally {
        if (ctx.path !== "/healthz") {
          log.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, "request");
        }
      }
    });
  });
  app.use(securityHeaders(deps.config.server));
  app.use(deps.metrics.http());
  app.use(errorMiddleware(log));
  app.use(hostGuard(deps.config));
  const parseJson = bodyParser({
    enableTypes: ["json"],
    jsonLimit: JSON_LIMIT_BYTES,
    onError: (error) => {
      throw Object.assign(error, { status: (error as { status?: number }).status ?? 400 });
    },
  });
  // SCIM reads its own bodies (application/scim+json, up to 1 MB) and answers errors in SCIM's format (server/scim/request.ts).
  // Integration routes parse their own, after their key is checked, up to their own limits (server/routes/define-route.ts).
  app.use((ctx, next) => (ctx.path.startsWith("/scim/") || ctx.path.startsWith(OWN_BODY_PREFIX) ? next() : parseJson(ctx, next)));
  app.use(scimFallback());

  const routes = mountRoutes(deps, API_ROUTES);
  app.use(routes.routes());
  app.use(routes.allowedMethods({ throw: true }));
  // The browser client: `/`, `/admin` (exactly) and `/app/*`; Bull Board keeps /admin/queues and /admin/login.
  app.use(serveWeb());
  mountBullBoard(app, deps);
  return app;
}
