/** Words the people page shows for the API's values: how someone arrived, and when they last signed in. */
import type { PersonBody } from "../../../server/routes/people/schema";
import { formatMoment, type MessageId, t } from "../lib/i18n";

/** Sign-ins through the identity provider are recorded; dev-login and pasted tokens are not. */
export const LAST_SIGN_IN_TITLE: MessageId = "people.lastSignIn.title";

export type Person = PersonBody;
export type ArrivedVia = PersonBody["provisioned_via"];

/** Typed by the API's own list, so a new way of arriving does not compile until it has words. */
export const ARRIVED_VIA: Record<ArrivedVia, { label: MessageId; title: MessageId }> = {
  seed: { label: "people.via.seed", title: "people.via.seed.title" },
  scim: { label: "people.via.scim", title: "people.via.scim.title" },
  jit: { label: "people.via.jit", title: "people.via.jit.title" },
  api: { label: "people.via.api", title: "people.via.api.title" },
  cli: { label: "people.via.cli", title: "people.via.cli.title" },
};

export function lastSignIn(person: Person): string {
  if (person.last_sign_in_at) return formatMoment(person.last_sign_in_at);
  return t(person.has_identity_link ? "people.lastSignIn.linkedNotYet" : "people.lastSignIn.never");
}
