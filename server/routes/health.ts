/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: Redis and Postgres answer). */
import Router from "@koa/router";
import type { ServerDeps } from "../deps";

async function probe(check: () => Promise<unknown>, timeoutMs = 2_000): Promise<"ok" | string> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))]);
    return "ok";
  } catch (error) {
    return (error as Error).message || "unreachable";
  }
}

export function healthRoutes(deps: ServerDeps): Router {
  const router = new Router();
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const [redis, postgres] = await Promise.all([probe(() => deps.redis.ping()), probe(() => deps.db.raw("select 1"))]);
    const ready = redis === "ok" && postgres === "ok";
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ready" : "not_ready", checks: { redis, postgres } };
  });
  return router;
}
