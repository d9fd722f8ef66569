/**
 * The organisation's people for its admins (the console's people page): list and search them,
 * add one, change name, department, job title or role, deactivate and reactivate. Always the
 * caller's own organisation: another organisation's person is a 404. The changes are direct
 * admin actions (not the assistant's confirmation flow), audited; the rules are in
 * commands/manage-people.ts.
 */
import { createPerson, updatePerson } from "../../../commands/manage-people";
import { findPersonListing, listPeople, type PersonListing } from "../../../db/queries/admin-people";
import { principalOf } from "../../auth/middleware";
import { notFound } from "../../errors";
import type { ServerDeps } from "../../deps";
import { defineRoute } from "../define-route";
import { createPersonBody, listPeopleQuery, onePersonResponse, peopleResponse, personParams, updatePersonBody, type PersonBody } from "./schema";

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

function presentPerson(row: PersonListing): PersonBody {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    department: row.department,
    job_title: row.job_title,
    locale: row.locale,
    is_active: row.is_active,
    provisioned_via: row.provisioned_via,
    created_at: new Date(row.created_at).toISOString(),
    deactivated_at: iso(row.deactivated_at),
    last_sign_in_at: iso(row.last_sign_in_at),
    has_identity_link: row.has_identity_link,
    erased_at: iso(row.erased_at),
  };
}

async function presentOne(deps: ServerDeps, orgId: string, id: string): Promise<{ person: PersonBody }> {
  const row = await findPersonListing(deps.db, orgId, id);
  if (!row) throw notFound("Person");
  return { person: presentPerson(row) };
}

export const peopleRoutes = [
  defineRoute({
    method: "get",
    path: "/api/v1/admin/people",
    tag: "people",
    summary: "The organisation's people, by name: search, filter by role, department, active and how they arrived, page by offset",
    access: "admin",
    query: listPeopleQuery,
    responses: { 200: { description: "One page of people and how many match.", schema: peopleResponse } },
    handler: async (ctx, { query }, deps) => {
      const { orgId } = principalOf(ctx);
      const { rows, total } = await listPeople(deps.db, orgId, {
        search: query.search,
        role: query.role,
        department: query.department || undefined,
        active: query.active,
        provisionedVia: query.provisioned_via,
        limit: query.limit,
        offset: query.offset,
      });
      const next = query.offset + rows.length;
      ctx.body = { people: rows.map(presentPerson), total, limit: query.limit, offset: query.offset, next_offset: next < total ? next : null };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/v1/admin/people",
    tag: "people",
    summary: "Add an employee or admin to the organisation (arrived via `api`)",
    access: "admin",
    body: createPersonBody,
    responses: { 201: { description: "Added.", schema: onePersonResponse } },
    errors: ["EMAIL_TAKEN", "DOMAIN_CLAIMED"],
    handler: async (ctx, { body }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      const created = await createPerson(deps, {
        actorId: userId,
        person: { orgId, email: body.email, name: body.name, role: body.role, department: body.department, jobTitle: body.job_title, locale: body.locale },
      });
      ctx.status = 201;
      ctx.body = await presentOne(deps, orgId, created.id);
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/v1/admin/people/:id",
    tag: "people",
    summary: "Change a person's name, department, job title or role, or deactivate / reactivate them",
    description:
      "Deactivating revokes the person's refresh tokens; their access tokens stop working at once. An admin cannot demote or deactivate themselves, nor leave the organisation without an active admin.",
    access: "admin",
    params: personParams,
    body: updatePersonBody,
    responses: { 200: { description: "The person as they are now.", schema: onePersonResponse } },
    errors: ["NOT_FOUND", "SELF_DEMOTION", "LAST_ADMIN", "PERSON_ERASED"],
    handler: async (ctx, { params: { id }, body }, deps) => {
      const { orgId, userId } = principalOf(ctx);
      await updatePerson(deps, { orgId, actorId: userId, personId: id, update: body });
      ctx.body = await presentOne(deps, orgId, id);
    },
  }),
];
