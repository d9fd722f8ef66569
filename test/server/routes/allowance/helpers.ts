/** An organisation of its own per suite, so allowances, usage and feedback never leak between tests. */
import { randomUUID } from "node:crypto";
import type { Person } from "../../../workers/admin/helpers";
import type { Stack } from "../../../support/stack";
import { dropOrganisations } from "../../../support/organizations";

export async function freshOrganisation(stack: Stack, name = "Test org"): Promise<string> {
  const [row] = await stack.server.deps
    .db("organizations")
    .insert({ name: `${name} ${randomUUID().slice(0, 6)}`, slug: `test-${randomUUID()}` })
    .returning("id");
  return row.id;
}

export async function dropOrganisation(stack: Stack, orgId: string): Promise<void> {
  await dropOrganisations(stack.server.deps.db, [orgId]);
}

/** A Person of the admin helpers as the tutor helpers' Learner (same token, socket and events). */
export const asLearner = (person: Person) => ({ token: person.token, userId: person.id, email: person.email, socket: person.socket, events: person.events });
