/** The documents API (admins): upload, list, inspect, restrict, delete and re-index company material. */
import Router from "@koa/router";
import { hasStoredFile } from "../../../db/queries/document-files";
import { reindexDocument } from "../../../commands/reindex-document";
import { deleteDocument } from "../../../db/queries/document-lifecycle";
import { coursesUsingDocument, findDocument, listDocuments, updateDocumentAccess } from "../../../db/queries/documents";
import { principalOf, requireAuth, requireRole } from "../../auth/middleware";
import type { ServerDeps } from "../../deps";
import { notFound } from "../../errors";
import { Refusal } from "../../../lib/refusal";
import { RateLimiter } from "../../middleware/rate-limit";
import { parseInput } from "../../validation";
import type { Context } from "koa";
import { idempotent } from "../../middleware/idempotency";
import { readSingleUpload, type UploadedFile } from "./multipart";
import { presentDocument } from "./present";
import { accessGiven, checkAccessCourse } from "./access";
import { deleteDocumentQuery, documentParams, listDocumentsQuery, patchDocumentBody, uploadFields } from "./schema";
import { acceptUpload, uploadFingerprint } from "./upload-document";

export function documentRoutes(deps: ServerDeps): Router {
  const router = new Router({ prefix: "/api/v1/documents" });
  router.use(requireAuth(deps), requireRole("admin"));
  const limiter = new RateLimiter(deps.redis);

  // The body is read once: by the Idempotency-Key fingerprint when there is a key, else by the route.
  const readUpload = (ctx: Context): Promise<{ file: UploadedFile; fields: Record<string, string> }> =>
    (ctx.state.upload ??= readSingleUpload(ctx, { field: "file", maxBytes: deps.config.UPLOAD_MAX_BYTES }));
  const uploadOnce = idempotent(deps.redis, {
    scope: "documents",
    // Before the body is read: a refused upload costs no parsing, storage or extraction; a replay costs no slot.
    admit: (ctx) =>
      limiter.consumeFor(principalOf(ctx), "upload", {
        perUser: deps.config.RATE_LIMIT_UPLOADS_PER_MINUTE,
        perOrganisation: deps.config.RATE_LIMIT_ORG_UPLOADS_PER_MINUTE,
      }),
    fingerprint: async (ctx) => uploadFingerprint(await readUpload(ctx)),
  });

  router.post("/", uploadOnce, async (ctx) => {
    const principal = principalOf(ctx);
    const { file, fields } = await readUpload(ctx);
    const { document, duplicate } = await acceptUpload(deps, principal, file, parseInput(uploadFields, fields, "body"));
    ctx.status = duplicate ? 200 : 202;
    ctx.body = { document_id: document.id, status: document.status, duplicate };
  });

  router.get("/", async (ctx) => {
    const { status } = parseInput(listDocumentsQuery, ctx.query, "query");
    const documents = await listDocuments(deps.db, principalOf(ctx).orgId, status);
    ctx.body = { documents: documents.map((document) => presentDocument(document)) };
  });

  router.get("/:id", async (ctx) => {
    const { id } = parseInput(documentParams, ctx.params, "params");
    const orgId = principalOf(ctx).orgId;
    const document = await findDocument(deps.db, orgId, id);
    if (!document) throw notFound("Document");
    ctx.body = presentDocument(document, { courses: await coursesUsingDocument(deps.db, orgId, id) });
  });

  router.patch("/:id", async (ctx) => {
    const { id } = parseInput(documentParams, ctx.params, "params");
    const body = parseInput(patchDocumentBody, ctx.request.body ?? {}, "body");
    const orgId = principalOf(ctx).orgId;
    const access = accessGiven(body);
    await checkAccessCourse(deps, orgId, access);
    const document = await updateDocumentAccess(deps.db, orgId, id, access);
    if (!document) throw notFound("Document");
    ctx.body = presentDocument(document, { courses: await coursesUsingDocument(deps.db, orgId, id) });
  });

  router.delete("/:id", async (ctx) => {
    const { id } = parseInput(documentParams, ctx.params, "params");
    const { force } = parseInput(deleteDocumentQuery, ctx.query, "query");
    const orgId = principalOf(ctx).orgId;
    const document = await findDocument(deps.db, orgId, id);
    if (!document) throw notFound("Document");
    const courses = await coursesUsingDocument(deps.db, orgId, id);
    if (courses.length > 0 && force !== "true") {
      throw new Refusal(
        "conflict",
        "DOCUMENT_IN_USE",
        `This document is the source of ${courses.map((c) => `"${c.title}"`).join(", ")}; delete with ?force=true to detach it`,
        {
          courses,
        },
      );
    }
    await deleteDocument(deps.db, orgId, id);
    ctx.status = 204;
  });

  router.post("/:id/reindex", async (ctx) => {
    const { id } = parseInput(documentParams, ctx.params, "params");
    const principal = principalOf(ctx);
    await limiter.consumeFor(principal, "reindex", {
      perUser: deps.config.RATE_LIMIT_REINDEX_PER_MINUTE,
      perOrganisation: deps.config.RATE_LIMIT_ORG_REINDEX_PER_MINUTE,
    });
    if (!(await findDocument(deps.db, principal.orgId, id))) throw notFound("Document");
    if (!(await hasStoredFile(deps.db, principal.orgId, id)))
      throw new Refusal("conflict", "NO_SOURCE_FILE", "This document has no uploaded file to re-index (it was seeded from text)");
    const document = await reindexDocument(deps, principal.orgId, id, principal.userId);
    if (!document) throw notFound("Document");
    ctx.status = 202;
    ctx.body = { document_id: id, status: "PENDING", generation: document.ingest_generation };
  });

  return router;
}
