/**
 * Bull Board at /admin/queues, for admins only. Browsers cannot attach a bearer header to
 * page loads, so `/admin/login?token=<JWT>` checks an admin token once and keeps it in an
 * http-only cookie scoped to /admin.
 */
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { KoaAdapter } from "@bull-board/koa";
import Router from "@koa/router";
import type Koa from "koa";
import { SESSION_COOKIE, requireAuth, requireRole } from "./auth/middleware";
import { forbidden, unauthorized } from "./errors";
import type { ServerDeps } from "./deps";

export const BULL_BOARD_PATH = "/admin/queues";

export function mountBullBoard(app: Koa, deps: ServerDeps): void {
  const login = new Router();
  login.get("/admin/login", async (ctx) => {
    const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
    const principal = token ? await deps.tokens.verify(token) : null;
    if (!principal) throw unauthorized("Pass a valid token: /admin/login?token=<JWT from dev-login or your identity provider>");
    if (principal.role !== "admin") throw forbidden("Bull Board is for admins only");
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
  const guard = [requireAuth(deps.tokens, { allowCookie: true }), requireRole("admin")];
  const board = adapter.registerPlugin();
  app.use(async (ctx, next) => {
    if (ctx.path !== BULL_BOARD_PATH && !ctx.path.startsWith(`${BULL_BOARD_PATH}/`)) return next();
    await guard[0]!(ctx, () => guard[1]!(ctx, () => board(ctx, next)));
  });
}
