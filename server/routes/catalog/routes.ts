import { applyCatalogRecords } from "../../../commands/apply-catalog-records";
/**
 * The catalog and progress API (`catalog:write`): an integration writes its courses, modules,
 * lessons, skills, enrolments and progress by its own ids — one record (PUT/DELETE), up to a
 * thousand at once (POST …/records), or a whole catalog as a queued bulk import (POST
 * …/imports). Every way applies records through db/queries/catalog-writes.ts, each whole or
 * refused with a reason; admins read the imports in the console (GET /api/v1/admin/catalog-imports).
 */
import type { Context } from "koa";
import type { z } from "zod";
import { findCatalogImport, importProblems, listCatalogImports, type CatalogImportRow } from "../../../db/queries/catalog-imports";
import type { Applied } from "../../../db/queries/catalog-writes";
import { abandonCatalogImport, receiveCatalogImport, reserveCatalogImport } from "../../../commands/receive-catalog-import";
import type { ImportFormat } from "../../../lib/catalog-import-file";
import { catalogFields, parseCatalogRecord, type CatalogRecord, type CatalogUpsert, type RecordProblem } from "../../../lib/catalog-records";
import { Refusal } from "../../../lib/refusal";
import { integrationCallerOf } from "../../auth/integration-key";
import type { ServerDeps } from "../../deps";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import { defineRoute, type ApiRoute } from "../define-route";
import {
  appliedRecordResponse,
  CATALOG_PATHS,
  catalogImportDetailResponse,
  catalogImportResponse,
  catalogImportsResponse,
  externalIdParams,
  importParams,
  importProblemsQuery,
  importsQuery,
  RECORD_BODY_MAX_BYTES,
  recordsBody,
  recordsResponse,
  RECORDS_BODY_MAX_BYTES,
  type CatalogImportBody,
} from "./schema";

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

function presentImport(row: CatalogImportRow): CatalogImportBody {
  const counts = { created: row.created, updated: row.updated, unchanged: row.unchanged, deleted: row.deleted, failed: row.failed };
  return {
    id: row.id,
    status: row.phase,
    format: row.format,
    byte_size: row.byte_size,
    total: row.total,
    done: counts.created + counts.updated + counts.unchanged + counts.deleted + counts.failed,
    counts,
    changed: counts.created + counts.updated + counts.deleted > 0,
    error: row.error,
    error_code: row.error_code,
    problems_omitted: { total: Object.values(row.problems_omitted ?? {}).reduce((sum, n) => sum + (n ?? 0), 0), by_code: row.problems_omitted ?? {} },
    key_name: row.key_name,
    created_at: new Date(row.created_at).toISOString(),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

/** A refused single record as the API answers it. */
function refusalOf(problem: RecordProblem): Refusal {
  if (problem.code === "UNKNOWN_REFERENCE") return new Refusal("invalid", "UNKNOWN_REFERENCE", problem.message);
  if (problem.code === "CONFLICT") return new Refusal("conflict", "RECORD_CONFLICT", problem.message);
  return new Refusal("invalid", "VALIDATION_ERROR", problem.message);
}

async function applyOne(ctx: Context, record: CatalogRecord, externalId: string, deps: ServerDeps): Promise<void> {
  const [applied] = await applyCatalogRecords(deps, integrationCallerOf(ctx).orgId, [record]);
  if (!applied!.ok) throw refusalOf(applied!.problem);
  ctx.status = applied!.result === "created" ? 201 : 200;
  ctx.body = { type: record.type, external_id: externalId, result: applied!.result };
}

type KeyedType = keyof typeof CATALOG_PATHS;

function recordRoutes<T extends KeyedType>(type: T): ApiRoute[] {
  const path = `/api/v1/integrations/catalog/${CATALOG_PATHS[type]}/:external_id`;
  const noun = type.replace("_", " ");
  return [
    defineRoute({
      method: "put",
      path,
      tag: "integrations",
      summary: `Create or replace the ${noun} of this external id (idempotent)`,
      description: "The body is the whole record: a field left out is cleared. `201` when created, `200` when updated or already so.",
      access: "integration",
      scope: "catalog:write",
      jsonLimitBytes: RECORD_BODY_MAX_BYTES,
      params: externalIdParams,
      body: catalogFields[type] as z.ZodObject,
      responses: {
        200: { description: "Updated, or already so (`unchanged`).", schema: appliedRecordResponse },
        201: { description: "Created.", schema: appliedRecordResponse },
      },
      errors: ["UNKNOWN_REFERENCE", "RECORD_CONFLICT", "PAYLOAD_TOO_LARGE"],
      handler: (ctx, { params, body }, deps) =>
        applyOne(ctx, { ...(body as object), type, external_id: params.external_id } as CatalogUpsert, params.external_id, deps),
    }),
    defineRoute({
      method: "delete",
      path,
      tag: "integrations",
      summary: `Delete the ${noun} of this external id, and what belongs to it (idempotent)`,
      description:
        "A course takes its modules, lessons, exercises, enrolments and progress with it; a module its lessons; a lesson its exercises. Deleting what is not there is `unchanged`.",
      access: "integration",
      scope: "catalog:write",
      params: externalIdParams,
      responses: { 200: { description: "Deleted, or not there (`unchanged`).", schema: appliedRecordResponse } },
      errors: ["RECORD_CONFLICT"],
      handler: (ctx, { params }, deps) => applyOne(ctx, { type, op: "delete", external_id: params.external_id } as CatalogRecord, params.external_id, deps),
    }),
  ];
}

/** The content types a bulk import is sent as, and how each is read. */
const IMPORT_TYPES: Record<string, ImportFormat> = {
  "application/x-ndjson": "ndjson",
  "application/ndjson": "ndjson",
  "application/jsonl": "ndjson",
  "application/json": "json",
};
const PART_BYTES = 1024 * 1024;

/** Reads the request body into parts of up to 1 MiB, refusing it as soon as it passes `limit` (nothing is stored then). */
async function readBodyParts(ctx: Context, limit: number): Promise<Buffer[]> {
  const tooLarge = () =>
    new Refusal("too_large", "IMPORT_TOO_LARGE", `The import is larger than ${limit} bytes (CATALOG_IMPORT_MAX_BYTES); split it into several imports.`, {
      limit_bytes: limit,
    });
  const declared = Number(ctx.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    ctx.set("Connection", "close");
    throw tooLarge();
  }
  const parts: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) {
      ctx.set("Connection", "close");
      throw tooLarge();
    }
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes >= PART_BYTES) {
      parts.push(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
    }
  }
  if (pendingBytes > 0) parts.push(Buffer.concat(pending));
  return parts;
}

export const catalogRoutes: ApiRoute[] = [
  ...(Object.keys(CATALOG_PATHS) as KeyedType[]).flatMap(recordRoutes),
  defineRoute({
    method: "post",
    path: "/api/v1/integrations/catalog/records",
    tag: "integrations",
    summary: "Apply up to 1,000 catalog and progress records at once, in order, each whole or refused",
    description:
      "Every record type, the pair-keyed ones (enrollment, skill_level, review_schedule) included. The answer has one result per record; a refused record (with its code and reason) leaves the others applied.",
    access: "integration",
    scope: "catalog:write",
    jsonLimitBytes: RECORDS_BODY_MAX_BYTES,
    body: recordsBody,
    responses: { 200: { description: "One result per record, in order, and the counts.", schema: recordsResponse } },
    errors: ["PAYLOAD_TOO_LARGE"],
    handler: async (ctx, { body }, deps) => {
      const parsed = body.records.map(parseCatalogRecord);
      const valid = parsed.flatMap((p) => (p.ok ? [p.record] : []));
      const applied = await applyCatalogRecords(deps, integrationCallerOf(ctx).orgId, valid);
      const counts = { created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 };
      let next = 0;
      const results = parsed.map((p, index) => {
        const outcome: Applied = p.ok ? applied[next++]! : p;
        if (outcome.ok) {
          counts[outcome.result]++;
          return { index, result: outcome.result };
        }
        counts.failed++;
        return { index, error: { code: outcome.problem.code, message: outcome.problem.message } };
      });
      ctx.body = { results, counts };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/integrations/catalog/imports",
    tag: "integrations",
    summary: "Queue a bulk import of catalog and progress records (NDJSON or JSON, up to CATALOG_IMPORT_MAX_BYTES and 100,000 records)",
    description:
      "The file is stored and applied by the `catalog-import` job: records in the order their references need, each whole or refused with its line and reason. A re-run of the same file changes nothing (`changed: false`). " +
      "At most 3 imports of an organisation wait or run at once (`409 IMPORTS_PENDING`, checked before the body is read); the file counts against the organisation's storage quota until the import ends (`409 STORAGE_QUOTA_EXCEEDED`).",
    access: "integration",
    scope: "catalog:write",
    rawBody: {
      contentTypes: Object.keys(IMPORT_TYPES),
      description: 'One record per line (NDJSON), or a JSON array of records or {"records": [...]}.',
    },
    responses: { 202: { description: "Stored and queued; follow it at `GET …/imports/{id}`.", schema: catalogImportResponse } },
    errors: ["IMPORT_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "IMPORTS_PENDING", "STORAGE_QUOTA_EXCEEDED", "QUEUE_UNAVAILABLE"],
    handler: async (ctx, _input, deps) => {
      const format = IMPORT_TYPES[ctx.request.type];
      if (!format) {
        throw new Refusal(
          "unsupported_media",
          "UNSUPPORTED_MEDIA_TYPE",
          `Send the import as ${Object.keys(IMPORT_TYPES).join(", ")} (this request is ${ctx.request.type || "untyped"}).`,
        );
      }
      const caller = integrationCallerOf(ctx);
      // The slot is taken before a byte of the body is read: refused posts buffer nothing.
      const reserved = await reserveCatalogImport(deps, { orgId: caller.orgId, key: { id: caller.key.id, name: caller.key.name }, format });
      let parts: Buffer[];
      try {
        parts = await readBodyParts(ctx, deps.config.server.CATALOG_IMPORT_MAX_BYTES);
      } catch (error) {
        await abandonCatalogImport(deps, reserved.id);
        throw error;
      }
      const row = await receiveCatalogImport(deps, reserved, { parts, defaultQuotaBytes: deps.config.organisations.ORG_STORAGE_QUOTA_BYTES });
      ctx.status = 202;
      ctx.set("Location", `/api/v1/integrations/catalog/imports/${row.id}`);
      ctx.body = { import: presentImport(row) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/integrations/catalog/imports",
    tag: "integrations",
    summary: "The organisation's bulk imports, newest first",
    access: "integration",
    scope: "catalog:write",
    query: importsQuery,
    responses: { 200: { description: "The imports.", schema: catalogImportsResponse } },
    handler: async (ctx, { query }, deps) => {
      ctx.body = { imports: (await listCatalogImports(deps.db, integrationCallerOf(ctx).orgId, query.limit)).map(presentImport) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/integrations/catalog/imports/:id",
    tag: "integrations",
    summary: "A bulk import: where it stands, its counts and the records it refused (by line)",
    access: "integration",
    scope: "catalog:write",
    params: importParams,
    query: importProblemsQuery,
    responses: { 200: { description: "The import and a page of its problems.", schema: catalogImportDetailResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params, query }, deps) => {
      ctx.body = await importDetail(deps, integrationCallerOf(ctx).orgId, params.id, query);
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/catalog-imports",
    tag: "integrations",
    summary: "The organisation's bulk catalog imports, newest first (the console's Imports page)",
    access: "admin",
    query: importsQuery,
    responses: { 200: { description: "The imports.", schema: catalogImportsResponse } },
    handler: async (ctx, { query }, deps) => {
      ctx.body = { imports: (await listCatalogImports(deps.db, principalOf(ctx).orgId, query.limit)).map(presentImport) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/v1/admin/catalog-imports/:id",
    tag: "integrations",
    summary: "A bulk catalog import with the records it refused",
    access: "admin",
    params: importParams,
    query: importProblemsQuery,
    responses: { 200: { description: "The import and a page of its problems.", schema: catalogImportDetailResponse } },
    errors: ["NOT_FOUND"],
    handler: async (ctx, { params, query }, deps) => {
      ctx.body = await importDetail(deps, principalOf(ctx).orgId, params.id, query);
    },
  }),
];

async function importDetail(
  deps: ServerDeps,
  orgId: string,
  importId: string,
  page: { after_line: number; limit: number },
): Promise<z.infer<typeof catalogImportDetailResponse>> {
  const row = await findCatalogImport(deps.db, importId, orgId);
  if (!row) throw notFound("Import");
  const problems = await importProblems(deps.db, row.id, page.after_line, page.limit + 1);
  const more = problems.length > page.limit;
  const shown = problems.slice(0, page.limit);
  return { import: presentImport(row), problems: shown, next_after_line: more ? shown.at(-1)!.line : null };
}
