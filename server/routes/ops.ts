/** The operator's routes: Prometheus metrics and signing a browser in to Bull Board (server/bull-board-sign-in.ts). */
import { BULL_BOARD_PATH, BoardSignIn, LOGIN_PATH, SIGN_IN_PAGE } from "../bull-board-sign-in";
import { Refusal } from "../../lib/refusal";
import { boardCodeResponse, boardLoginForm } from "../openapi/responses";
import { defineRoute } from "./define-route";

export const opsRoutes = [
  defineRoute({
    method: "get",
    path: "/metrics",
    tag: "ops",
    summary: "Prometheus metrics of this server",
    description: "Without METRICS_TOKEN, served only while dev-login is on (403 otherwise).",
    access: "metrics",
    responses: { 200: { description: "Prometheus text exposition.", contentType: "text/plain" } },
    errors: ["FORBIDDEN"],
    handler: (ctx, _input, deps) => deps.metrics.serve(ctx, { ...deps.config.server, ...deps.config.auth }),
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/ops/board-code",
    tag: "ops",
    summary: "A single-use code that signs a browser in to Bull Board",
    description: `Valid for BOARD_CODE_TTL_SECONDS; opening \`url\` sets the board cookie and redirects (303) to ${BULL_BOARD_PATH}.`,
    access: "operator",
    responses: { 201: { description: "The code and the URL to open.", schema: boardCodeResponse } },
    handler: async (ctx, _input, deps) => {
      ctx.status = 201;
      ctx.body = await new BoardSignIn(deps).issueCode(ctx);
    },
  }),
  defineRoute({
    method: "get",
    path: LOGIN_PATH,
    tag: "ops",
    summary: "Bull Board sign-in page (a form that POSTs the token)",
    description: "A `?token=` in the URL is refused (400 TOKEN_IN_URL).",
    access: "public",
    responses: { 200: { description: "The sign-in page.", contentType: "text/html" } },
    errors: ["TOKEN_IN_URL"],
    handler: (ctx) => {
      if (ctx.query.token !== undefined) {
        throw new Refusal(
          "invalid",
          "TOKEN_IN_URL",
          `Tokens are not accepted in URLs: use the form at ${LOGIN_PATH} or a code from POST /api/v1/ops/board-code`,
        );
      }
      ctx.type = "html";
      ctx.body = SIGN_IN_PAGE;
    },
  }),
  defineRoute({
    method: "post",
    path: LOGIN_PATH,
    tag: "ops",
    summary: "Sign in to Bull Board with an operator admin's token",
    access: "public",
    form: { type: "urlencoded", fields: boardLoginForm },
    responses: { 303: { description: `Redirect to ${BULL_BOARD_PATH} with the \`skillnet_token\` cookie (HttpOnly, SameSite=Strict, path /admin).` } },
    errors: ["UNAUTHORIZED", "FORBIDDEN", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
    handler: (ctx, _input, deps) => new BoardSignIn(deps).signInWithForm(ctx),
  }),
];
