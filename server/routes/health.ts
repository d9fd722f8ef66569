/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: Redis and Postgres answer).
 * Back-end error text names hosts, ports and users, so anonymous callers see only `ok`/`down` per
 * component; the reason goes to the log, and to callers holding METRICS_TOKEN under `details`.
 */
import Router from "@koa/router";
import { hasOpsToken } from "../auth/ops-token";
import type { ServerDeps } from "../deps";

type Probe = { ok: true } | { ok: false; reason: string };

async function probe(check: () => Promise<unknown>, timeoutMs = 2_000): Promise<Probe> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([check(), timeout]);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: (error as Error).message || "unreachable" };
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(deps: Pick<ServerDeps, "redis" | "db" | "log" | "config">): Router {
  const router = new Router();
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const [redis, postgres] = await Promise.all([probe(() => deps.redis.ping()), probe(() => deps.db.raw("select 1"))]);
    const ready = redis.ok && postgres.ok;
    const details = Object.fromEntries(Object.entries({ redis, postgres }).flatMap(([name, result]) => (result.ok ? [] : [[name, result.reason]])));
    if (!ready) deps.log.warn({ details }, "not ready");
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: ready ? "ready" : "not_ready",
      checks: { redis: redis.ok ? "ok" : "down", postgres: postgres.ok ? "ok" : "down" },
      ...(!ready && hasOpsToken(ctx, deps.config.METRICS_TOKEN) ? { details } : {}),
    };
  });
  return router;
}
