/**
 * `GET /api/v1/me`: what a client needs to draw itself for the signed-in caller — who they are,
 * the language of their pages, which model answers (so a UI can say plainly when it is the offline
 * stand-in), whether they may open Bull Board, and (admins) the upload limits to show before a
 * file is sent. `PATCH /api/v1/me`: the person chooses the language of their pages.
 */
import { ALLOWED_EXTENSIONS } from "../../lib/document-formats";
import { modelFor } from "../../lib/config";
import { findOrganisationName, findUser } from "../../db/queries/users";
import { choosePageLanguage } from "../../commands/page-locale";
import { acceptedTags, pageLanguageOf, resolvePageLanguage } from "../../lib/page-language";
import { principalOf } from "../auth/middleware";
import { isOperator } from "../auth/operator";
import { unauthorized } from "../errors";
import { meResponse, pageLanguageResponse } from "../openapi/responses";
import { patchMeBody } from "./me-schema";
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
        user: {
          id: user.id,
          org_id: user.org_id,
          email: user.email,
          name: user.name,
          role: user.role,
          department: user.department,
          locale: user.locale,
          page_locale: pageLanguageOf(user.page_locale) ?? null,
        },
        page_language: resolvePageLanguage(user.page_locale, acceptedTags(ctx.get("accept-language"))),
        organisation: { name: (await findOrganisationName(deps.db, principal.orgId)) ?? null },
        model: { name: chain[0], offline: chain[0] === OFFLINE_MODEL },
        operator: await isOperator(deps, principal),
        ...(principal.role === "admin" ? { uploads: { max_bytes: deps.config.server.UPLOAD_MAX_BYTES, accepted_extensions: [...ALLOWED_EXTENSIONS] } } : {}),
      };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/v1/me",
    tag: "caller",
    summary: "Choose the language of the caller's pages (null: follow the browser again); audited",
    description:
      "The choice outlasts what the identity provider's `locale` claim or SCIM's `preferredLanguage` state later; it does not change " +
      "`user.locale`, the tutor's fallback for messages too short to tell their language.",
    access: "bearer",
    body: patchMeBody,
    responses: { 200: { description: "The saved choice and the language the pages use now.", schema: pageLanguageResponse } },
    handler: async (ctx, { body }, deps) => {
      const principal = principalOf(ctx);
      if (!(await choosePageLanguage(deps, { orgId: principal.orgId, userId: principal.userId, pageLocale: body.page_locale })))
        throw unauthorized("The account no longer exists");
      ctx.body = { page_locale: body.page_locale, page_language: resolvePageLanguage(body.page_locale, acceptedTags(ctx.get("accept-language"))) };
    },
  }),
];
