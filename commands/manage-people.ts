/**
 * An admin's direct changes to the organisation's people, from the console's people page: add a
 * person, change their name, department, job title or role, deactivate or reactivate them. Each
 * runs in one transaction with its audit row. What is refused, and why:
 *
 * - an address someone in this organisation already has (`EMAIL_TAKEN`);
 * - an address kept by another organisation: someone there has it, or that organisation has
 *   verified its domain (`EMAIL_UNAVAILABLE`, one answer for both reasons, naming neither the
 *   person nor the organisation: review F15);
 * - an admin demoting or deactivating themselves (`SELF_DEMOTION`): they would lock themselves
 *   out mid-session, and the next admin can do it deliberately;
 * - a change that would leave the organisation without an active admin (`LAST_ADMIN`): only two
 *   admins changing each other at the same moment reach it, since the caller is an admin too.
 *
 * Deactivation goes through the assistant's own path (`deactivateUser`), so the person's refresh
 * tokens are revoked with it; their access tokens stop working at once (every request re-reads
 * whether the account is active) and open sockets within the gateway's re-check window.
 *
 * Audited once per change: `person.created`, or one of `person.updated`, `.deactivated`,
 * `.reactivated` (an update that also (de)activates is recorded as the (de)activation).
 */
import { deactivateUser } from "../db/queries/admin-action-items";
import { emailKeptByAnotherOrganisation } from "../db/queries/organisation-domains";
import { isErased } from "../db/queries/person-erasure";
import { recordAudit } from "../db/queries/audit-log";
import {
  insertApiPerson,
  lockPersonAndAdmins,
  reactivatePerson,
  updatePersonFields,
  type NewPerson,
  type PersonChanges,
  type PersonState,
} from "../db/queries/people-writes";
import { Refusal } from "../lib/refusal";
import type { CommandDeps } from "./deps";
import { cutSocketsOnCommit } from "./cut-sockets";
import { withTransaction } from "./transaction";

type PeopleDeps = Pick<CommandDeps, "db" | "log" | "redis">;

export async function createPerson(deps: PeopleDeps, request: { actorId: string; person: NewPerson }): Promise<{ id: string }> {
  const { person } = request;
  if (await emailKeptByAnotherOrganisation(deps.db, person.orgId, person.email)) throw emailUnavailable();
  const created = await withTransaction(deps, async (trx) => {
    const inserted = await insertApiPerson(trx, person);
    if (inserted === "taken") return inserted;
    await recordAudit(trx, {
      name: "person.created",
      orgId: person.orgId,
      actor: { type: "person", id: request.actorId },
      target: { type: "user", id: inserted.id },
      after: { name: person.name, role: person.role, department: person.department, job_title: person.jobTitle, locale: person.locale, provisioned_via: "api" },
    });
    return inserted;
  });
  if (created === "taken") {
    // Lost a race with another organisation's insert: answered as if the check had seen it.
    if (await emailKeptByAnotherOrganisation(deps.db, person.orgId, person.email)) throw emailUnavailable();
    throw new Refusal("conflict", "EMAIL_TAKEN", "Someone in this organisation already has this email address.");
  }
  deps.log.child({ component: "people" }).info({ orgId: person.orgId, actorId: request.actorId, userId: created.id }, "person added");
  return created;
}

const emailUnavailable = () =>
  new Refusal("conflict", "EMAIL_UNAVAILABLE", "This address cannot be added to this organisation: it, or its domain, belongs to another organisation.");

export interface PersonUpdate extends PersonChanges {
  is_active?: boolean;
}

const FIELDS = ["name", "role", "department", "job_title", "is_active"] as const;

function put<K extends keyof PersonUpdate>(target: PersonUpdate, key: K, value: PersonUpdate[K]): void {
  target[key] = value;
}

/** The fields of `update` that differ from the person as they are, before and after. */
function differences(person: PersonState, update: PersonUpdate): { before: PersonUpdate; after: PersonUpdate } {
  const before: PersonUpdate = {};
  const after: PersonUpdate = {};
  for (const field of FIELDS) {
    const value = update[field];
    if (value === undefined || value === person[field]) continue;
    put(before, field, person[field]);
    put(after, field, value);
  }
  return { before, after };
}

function refuseLosingAdmin(request: { actorId: string; personId: string }, person: PersonState, update: PersonUpdate, activeAdminIds: string[]): void {
  const losesAdmin = person.role === "admin" && person.is_active && (update.role === "employee" || update.is_active === false);
  if (!losesAdmin) return;
  if (request.personId === request.actorId)
    throw new Refusal("conflict", "SELF_DEMOTION", "You cannot remove your own admin access or deactivate yourself; another admin of the organisation can.");
  if (activeAdminIds.filter((id) => id !== person.id).length === 0)
    throw new Refusal("conflict", "LAST_ADMIN", `${person.name} is the organisation's last active admin; make someone else an admin first.`);
}

/** Applies the changes that differ; `changed` is false when the person already was as asked (nothing audited). */
export async function updatePerson(
  deps: PeopleDeps,
  request: { orgId: string; actorId: string; personId: string; update: PersonUpdate },
): Promise<{ changed: boolean }> {
  const action = await withTransaction(deps, async (trx) => {
    const { person, activeAdminIds } = await lockPersonAndAdmins(trx, request.orgId, request.personId);
    if (!person) throw Refusal.notFound("Person");
    // From the erasure's request on, the row is on its way to an anonymised placeholder: reactivating or renaming it would bring nobody back.
    if (await isErased(trx, request.orgId, person.id))
      throw new Refusal("conflict", "PERSON_ERASED", "This person's data is erased or being erased; their row cannot be changed.");
    refuseLosingAdmin(request, person, request.update, activeAdminIds);
    const { before, after } = differences(person, request.update);
    if (Object.keys(after).length === 0) return null;
    const { is_active: active, ...fields } = after;
    await updatePersonFields(trx, request.orgId, person.id, fields);
    if (active === false) {
      await deactivateUser(trx, request.orgId, person.id);
      cutSocketsOnCommit(trx, deps, person.id);
    }
    if (active === true) await reactivatePerson(trx, request.orgId, person.id);
    const audited = active === false ? "person.deactivated" : active === true ? "person.reactivated" : "person.updated";
    await recordAudit(trx, {
      name: audited,
      orgId: request.orgId,
      actor: { type: "person", id: request.actorId },
      target: { type: "user", id: person.id },
      before,
      after,
    });
    return audited;
  });
  if (action)
    deps.log.child({ component: "people" }).info({ orgId: request.orgId, actorId: request.actorId, userId: request.personId, action }, "person changed");
  return { changed: action !== null };
}
