/**
 * Bull Board at /admin/queues. The board shows and controls every tenant's jobs, so it is
 * for the platform operator only: admins of the organisation named by OPS_ORG. Browsers sign in
 * through `BoardSignIn` (a form or a single-use code, never a token in the URL); scripts send
 * `Authorization: Bearer <JWT>`. It is writable (retry, clean, pause, add, empty) unless
 * BULL_BOARD_READ_ONLY is set, which puts every queue in @bull-board's `readOnlyMode`.
 */
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { KoaAdapter } from "@bull-board/koa";
import type Koa from "koa";
import { requireAuth, requireRole } from "./auth/middleware";
import { requireOperator } from "./auth/operator";
import { BULL_BOARD_PATH, BoardSignIn } from "./bull-board-sign-in";
import type { ServerDeps } from "./deps";

export { BULL_BOARD_PATH };

export function mountBullBoard(app: Koa, deps: ServerDeps): void {
  const signIn = new BoardSignIn(deps);

  const adapter = new KoaAdapter();
  adapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    // Copies of a queue (QUEUE_SHARDS) share its name: the board tells them apart as `s1-tutor-generate`, ….
    queues: deps.producer.allCopies().map(
      ({ queue, shard }) =>
        new BullMQAdapter(deps.producer.queue(queue, shard), {
          readOnlyMode: deps.config.server.BULL_BOARD_READ_ONLY,
          ...(shard > 0 ? { prefix: `s${shard}-` } : {}),
        }),
    ),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "skillnet-chat queues" } },
  });
  const guard = [requireAuth(deps, { allowCookie: true }), requireRole("admin"), requireOperator(deps)];
  const board = adapter.registerPlugin();
  app.use(async (ctx, next) => {
    if (ctx.path !== BULL_BOARD_PATH && !ctx.path.startsWith(`${BULL_BOARD_PATH}/`)) return next();
    if (ctx.path === BULL_BOARD_PATH && typeof ctx.query.code === "string") return signIn.redeem(ctx, ctx.query.code);
    await guard[0]!(ctx, () => guard[1]!(ctx, () => guard[2]!(ctx, () => board(ctx, next))));
  });
}
