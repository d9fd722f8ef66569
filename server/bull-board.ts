/**
 * Bull Board at /admin/queues. The board shows and controls every tenant's jobs, so it is
 * for the platform operator only: admins of the organisation named by OPS_ORG. Browsers cannot
 * attach a bearer header to page loads, so `/admin/login?token=<JWT>` checks the token once and
 * keeps it in an http-only cookie scoped to /admin.
 */
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { KoaAdapter } from "@bull-board/koa";
import Router from "@koa/router";
import type Koa from "koa";
import type { Middleware } from "koa";
import { SESSION_COOKIE, authenticate, principalOf, requireAuth, requireRole } from "./auth/middleware";
import type { Principal } from "./auth/tokens";
import { forbidden, unauthorized } from "./errors";
import type { ServerDeps } from "./deps";

export const BULL_BOARD_PATH = "/admin/queues";

/** True when the caller is an admin of the operator organisation (OPS_ORG). */
async function isOperator(deps: ServerDeps, principal: Principal): Promise<boolean> {
  if (principal.role !== "admin" || !deps.config.OPS_ORG) return false;
  const org = await deps.db("organizations").where({ id: principal.orgId, slug: deps.config.OPS_ORG }).first("id");
  return Boolean(org);
}

function requireOperator(deps: ServerDeps): Middleware {
  return async (ctx, next) => {
    if (!(await isOperator(deps, principalOf(ctx)))) {
      throw forbidden(deps.config.OPS_ORG ? "Bull Board is for admins of the operator organisation only" : "Bull Board is disabled: set OPS_ORG to the slug of the operator organisation");
    }
    await next();
  };
}

export function mountBullBoard(app: Koa, deps: ServerDeps): void {
  const login = new Router();
  login.get("/admin/login", async (ctx) => {
    const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
    const principal = token ? await authenticate(deps, token) : null;
    if (!principal) throw unauthorized("Pass a valid token: /admin/login?token=<JWT from dev-login or your identity provider>");
    if (!(await isOperator(deps, principal))) throw forbidden("Bull Board is for admins of the operator organisation (OPS_ORG) only");
    ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: "strict", path: "/admin", overwrite: true });
    ctx.redirect(BULL_BOARD_PATH);
  });
  app.use(login.routes());

  const adapter = new KoaAdapter();
  adapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: deps.producer.allQueues().map((queue) => new BullMQAdapter(queue)),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "skillnet-chat queues" } },
  });
  const guard = [requireAuth(deps, { allowCookie: true }), requireRole("admin"), requireOperator(deps)];
  const board = adapter.registerPlugin();
  app.use(async (ctx, next) => {
    if (ctx.path !== BULL_BOARD_PATH && !ctx.path.startsWith(`${BULL_BOARD_PATH}/`)) return next();
    await guard[0]!(ctx, () => guard[1]!(ctx, () => guard[2]!(ctx, () => board(ctx, next))));
  });
}
