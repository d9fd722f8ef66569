/**
 * `GET /api/v1/me`: what a client needs to draw itself for the signed-in caller — who they are,
 * which model answers (so a UI can say plainly when it is the offline stand-in), whether they may
 * open Bull Board, and (admins) the upload limits to show before a file is sent.
 */
import { ALLOWED_EXTENSIONS } from "../../lib/document-formats";
import { modelFor } from "../../lib/config";
import { findOrganisationName, findUser } from "../../db/queries/users";
import { principalOf } from "../auth/middleware";
import { isOperator } from "../auth/operator";
import { unauthorized } from "../errors";
import { meResponse } from "../openapi/responses";
import { defineRoute } from "./define-route";

/** The model name the bundled offline server answers to (offline-model/). */
export const OFFLINE_MODEL = "offline-extractive";

export const meRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/me",
    tag: "caller",
    summary: "Who the caller is, which model answers, whether they may open Bull Board",
    access: "bearer",
    responses: { 200: { description: "The caller.", schema: meResponse } },
    handler: async (ctx, _input, deps) => {
      const principal = principalOf(ctx);
      const user = await findUser(deps.db, principal.orgId, principal.userId);
      if (!user) throw unauthorized("The account no longer exists");
      // First of a fallback chain: the model that answers while it is healthy.
      const chain = modelFor(deps.config.llm, "generation")
        .split(",")
        .map((name) => name.trim());
      ctx.body = {
        user: { id: user.id, org_id: user.org_id, email: user.email, name: user.name, role: user.role, department: user.department, locale: user.locale },
        organisation: { name: (await findOrganisationName(deps.db, principal.orgId)) ?? null },
        model: { name: chain[0], offline: chain[0] === OFFLINE_MODEL },
        operator: await isOperator(deps, principal),
        ...(principal.role === "admin" ? { uploads: { max_bytes: deps.config.server.UPLOAD_MAX_BYTES, accepted_extensions: [...ALLOWED_EXTENSIONS] } } : {}),
      };
    },
  }),
];
