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
import { adminActionRoutes } from "./routes/admin/actions";
import { authRoutes } from "./routes/auth";
import { chatRoutes } from "./routes/chat/routes";
import { documentRoutes } from "./routes/documents/routes";
import { healthRoutes } from "./routes/health";

const JSON_LIMIT = "64kb";

export function createApp(deps: ServerDeps): Koa {
  // X-Forwarded-* decide the client IP (dev-login rate limit) and HTTPS (Secure cookies); only a proxy may set them.
  const app = new Koa({ proxy: deps.config.TRUST_PROXY });
  const log = deps.log;

  app.use(async (ctx, next) => {
    const requestId = ctx.get("x-request-id") || randomUUID();
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
  app.use(deps.metrics.http());
  app.use(errorMiddleware(log));
  app.use(
    bodyParser({
      enableTypes: ["json"],
      jsonLimit: JSON_LIMIT,
      onError: (error) => {
        throw Object.assign(error, { status: (error as { status?: number }).status ?? 400 });
      },
    }),
  );

  for (const router of [deps.metrics.routes(deps.config), healthRoutes(deps), authRoutes(deps), chatRoutes(deps), adminActionRoutes(deps), documentRoutes(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  }
  mountBullBoard(app, deps);
  return app;
}
