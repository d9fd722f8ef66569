/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: Redis and Postgres answer).
 * Back-end error text names hosts, ports and users, so anonymous callers see only `ok`/`down` per
 * component; the reason goes to the log, and to callers holding METRICS_TOKEN under `details`.
 */
import { hasOpsToken } from "../auth/ops-token";
import { healthResponse, readyResponse } from "../openapi/responses";
import { defineRoute } from "./define-route";

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

export const healthRoutes = [
  defineRoute({
    method: "get",
    path: "/healthz",
    tag: "ops",
    summary: "Liveness: the process answers",
    access: "public",
    responses: { 200: { description: "Alive.", schema: healthResponse } },
    handler: (ctx) => {
      ctx.body = { status: "ok" };
    },
  }),
  defineRoute({
    method: "get",
    path: "/readyz",
    tag: "ops",
    summary: "Readiness: Redis and Postgres answer (2 s timeout each)",
    access: "public",
    responses: {
      200: { description: "Ready.", schema: readyResponse },
      503: { description: "Not ready; the reason is logged, and returned as `details` with the METRICS_TOKEN.", schema: readyResponse },
    },
    handler: async (ctx, _input, deps) => {
      const [redis, postgres] = await Promise.all([probe(() => deps.redis.ping()), probe(() => deps.db.raw("select 1"))]);
      const ready = redis.ok && postgres.ok;
      const details = Object.fromEntries(Object.entries({ redis, postgres }).flatMap(([name, result]) => (result.ok ? [] : [[name, result.reason]])));
      if (!ready) deps.log.warn({ details }, "not ready");
      ctx.status = ready ? 200 : 503;
      ctx.body = {
        status: ready ? "ready" : "not_ready",
        checks: { redis: redis.ok ? "ok" : "down", postgres: postgres.ok ? "ok" : "down" },
        ...(!ready && hasOpsToken(ctx, deps.config.server.METRICS_TOKEN) ? { details } : {}),
      };
    },
  }),
];
