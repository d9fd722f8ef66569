/**
 * A person's data (issue 33): an employee downloads their own (`/api/v1/me/export…`), an admin
 * exports or erases one person of their organisation (`/api/v1/admin/people/:id/…`). Exports and
 * erasures are queued jobs (`person-data`); these routes ask for them, report where they stand and
 * serve the archive. The person's copy and an admin's are separate; another person's or another
 * organisation's export is a 404. See docs/personal-data.md.
 */
import type { Context } from "koa";
import { downloadPersonExport, requestPersonErasure, requestPersonExport } from "../../../commands/person-data";
import { type ExportOwner, findPersonExport, latestPersonExport, type PersonExportRow } from "../../../db/queries/person-exports";
import { findErasureTarget, latestPersonErasure, type PersonErasureRow } from "../../../db/queries/person-erasure";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import type { ServerDeps } from "../../deps";
import { defineRoute } from "../define-route";
import {
  erasureBody,
  erasureResponse,
  type ExportRecord,
  exportParams,
  latestExportResponse,
  oneExportResponse,
  personExportParams,
  personParams,
} from "./schema";

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

function presentExport(row: PersonExportRow, downloadUrl: string): ExportRecord {
  const expired = row.status === "completed" && row.expires_at !== null && new Date(row.expires_at).getTime() <= Date.now();
  return {
    id: row.id,
    status: expired ? "expired" : row.status,
    requested_via: row.requested_via,
    created_at: new Date(row.created_at).toISOString(),
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at),
    size_bytes: row.archive_bytes,
    counts: row.counts,
    error: row.error,
    error_code: row.error_code,
    download_url: row.status === "completed" && !expired ? downloadUrl : null,
  };
}

function presentErasure(row: PersonErasureRow) {
  return {
    erasure: {
      id: row.id,
      status: row.status,
      step: row.step,
      runs: row.runs,
      learning_records: row.keep_learning_records ? ("keep" as const) : ("erase" as const),
      removed: row.counts,
      error: row.error,
      error_code: row.error_code,
      created_at: new Date(row.created_at).toISOString(),
      finished_at: iso(row.finished_at),
    },
  };
}

const ownUrl = (exportId: string) => `/api/v1/me/exports/${exportId}/download`;
const adminUrl = (personId: string) => (exportId: string) => `/api/v1/admin/people/${personId}/exports/${exportId}/download`;

const self = (ctx: Context): ExportOwner => {
  const { orgId, userId } = principalOf(ctx);
  return { orgId, userId, via: "self" };
};
const ofPerson = (ctx: Context, personId: string): ExportOwner => ({ orgId: principalOf(ctx).orgId, userId: personId, via: "admin" });

async function sendArchive(ctx: Context, deps: ServerDeps, owner: ExportOwner, exportId: string): Promise<void> {
  const archive = await downloadPersonExport(deps, { owner, exportId, actorId: principalOf(ctx).userId });
  ctx.set("Content-Disposition", `attachment; filename="skillnet-data-${exportId.slice(0, 8)}.zip"`);
  ctx.set("Cache-Control", "no-store");
  ctx.type = "application/zip";
  ctx.body = archive;
}

async function oneExport(ctx: Context, deps: ServerDeps, owner: ExportOwner, exportId: string, url: (id: string) => string): Promise<void> {
  const row = await findPersonExport(deps.db, owner, exportId);
  if (!row) throw notFound("Export");
  ctx.body = { export: presentExport(row, url(row.id)) };
}

const ZIP = { description: "The archive: README.md, data.json and sessions/*.md.", contentType: "application/zip" };

export const personDataRoutes = [
  defineRoute({
    method: "post",
    path: "/api/v1/me/export",
    tag: "personal-data",
    summary: "Export my data: a zip of my chats (with citations), ratings, enrolments and skills, built by a queued job",
    access: "bearer",
    responses: { 202: { description: "Queued (or the export already under way).", schema: oneExportResponse } },
    errors: ["QUEUE_UNAVAILABLE"],
    handler: async (ctx, _input, deps) => {
      const owner = self(ctx);
      const row = await requestPersonExport(deps, { orgId: owner.orgId, personId: owner.userId, requestedBy: owner.userId, via: "self" });
      ctx.status = 202;
      ctx.body = { export: presentExport(row, ownUrl(row.id)) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/me/export",
    tag: "personal-data",
    summary: "My newest data export and where it stands (with its download URL once built)",
    access: "bearer",
    responses: { 200: { description: "The newest export, or null.", schema: latestExportResponse } },
    handler: async (ctx, _input, deps) => {
      const row = await latestPersonExport(deps.db, self(ctx));
      ctx.body = { export: row ? presentExport(row, ownUrl(row.id)) : null };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/me/exports/:id",
    tag: "personal-data",
    summary: "One of my data exports",
    access: "bearer",
    params: exportParams,
    responses: { 200: { description: "The export.", schema: oneExportResponse } },
    errors: ["NOT_FOUND"],
    handler: (ctx, { params }, deps) => oneExport(ctx, deps, self(ctx), params.id, ownUrl),
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/me/exports/:id/download",
    tag: "personal-data",
    summary: "Download one of my data exports (until it expires)",
    access: "bearer",
    params: exportParams,
    responses: { 200: ZIP },
    errors: ["NOT_FOUND"],
    handler: (ctx, { params }, deps) => sendArchive(ctx, deps, self(ctx), params.id),
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/people/:id/export",
    tag: "personal-data",
    summary: "Export one person's data (as they would get it), built by a queued job",
    access: "admin",
    params: personParams,
    responses: { 202: { description: "Queued (or the export already under way).", schema: oneExportResponse } },
    errors: ["NOT_FOUND", "PERSON_ERASED", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, { params }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      const row = await requestPersonExport(deps, { orgId, personId: params.id, requestedBy: userId, via: "admin" });
      ctx.status = 202;
      ctx.body = { export: presentExport(row, adminUrl(params.id)(row.id)) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/people/:id/export",
    tag: "personal-data",
    summary: "The newest admin export of one person and where it stands",
    access: "admin",
    params: personParams,
    responses: { 200: { description: "The newest export, or null.", schema: latestExportResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      const owner = ofPerson(ctx, params.id);
      if (!(await findErasureTarget(deps.db, owner.orgId, params.id))) throw notFound("Person");
      const row = await latestPersonExport(deps.db, owner);
      ctx.body = { export: row ? presentExport(row, adminUrl(params.id)(row.id)) : null };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/people/:id/exports/:exportId",
    tag: "personal-data",
    summary: "One admin export of one person",
    access: "admin",
    params: personExportParams,
    responses: { 200: { description: "The export.", schema: oneExportResponse } },
    errors: ["NOT_FOUND"],
    handler: (ctx, { params }, deps) => oneExport(ctx, deps, ofPerson(ctx, params.id), params.exportId, adminUrl(params.id)),
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/people/:id/exports/:exportId/download",
    tag: "personal-data",
    summary: "Download an admin export of one person (until it expires)",
    access: "admin",
    params: personExportParams,
    responses: { 200: ZIP },
    errors: ["NOT_FOUND"],
    handler: (ctx, { params }, deps) => sendArchive(ctx, deps, ofPerson(ctx, params.id), params.exportId),
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/people/:id/erasure",
    tag: "personal-data",
    summary: "Erase one person's data (confirmed with their email): chats, feedback, vectors, identity links, tokens, exports; queued, with progress",
    description:
      "The person is locked out at once (deactivated, refresh tokens revoked); the `person-data` job's `erase` run deletes the rest in batches, " +
      "unlinks usage rows, scrubs audit rows that named them and anonymises their row, then audits `person.erased` (who asked, not what went).",
    access: "admin",
    params: personParams,
    body: erasureBody,
    responses: { 202: { description: "Queued (or the erasure already under way).", schema: erasureResponse } },
    errors: ["NOT_FOUND", "ERASURE_NOT_CONFIRMED", "PERSON_ERASED", "SELF_ERASURE", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, { params, body }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      const erasure = await requestPersonErasure(deps, {
        orgId,
        personId: params.id,
        adminId: userId,
        confirm: body.confirm,
        keepLearningRecords: body.learning_records === "keep",
      });
      ctx.status = 202;
      ctx.set("Location", `/api/v1/admin/people/${params.id}/erasure`);
      ctx.body = presentErasure(erasure);
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/people/:id/erasure",
    tag: "personal-data",
    summary: "Where one person's erasure stands: status, step and counts so far",
    access: "admin",
    params: personParams,
    responses: { 200: { description: "The newest erasure.", schema: erasureResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params }, deps) => {
      const erasure = await latestPersonErasure(deps.db, principalOf(ctx).orgId, params.id);
      if (!erasure) throw notFound("Erasure");
      ctx.body = presentErasure(erasure);
    },
  }),
];
