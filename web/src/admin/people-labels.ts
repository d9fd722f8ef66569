/** Sign-ins through the identity provider are recorded; dev-login and pasted tokens are not. */
export const LAST_SIGN_IN_TITLE = "The latest single sign-on through the organisation's identity provider";

/** Words the people page shows for the API's values: how someone arrived, and when they last signed in. */
import type { PersonBody } from "../../../server/routes/people/schema";

export type Person = PersonBody;
export type ArrivedVia = PersonBody["provisioned_via"];

/** Typed by the API's own list, so a new way of arriving does not compile until it has words. */
export const ARRIVED_VIA: Record<ArrivedVia, { label: string; title: string }> = {
  seed: { label: "Seed", title: "Created by the demo seed" },
  scim: { label: "SCIM", title: "Provisioned by the identity system (SCIM)" },
  jit: { label: "JIT", title: "Created at their first single sign-on (just in time)" },
  api: { label: "API", title: "Added by an admin (console or API)" },
  cli: { label: "CLI", title: "Created with the org command line" },
};

export function lastSignIn(person: Person): string {
  if (person.last_sign_in_at) return new Date(person.last_sign_in_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return person.has_identity_link ? "Linked, not yet" : "Never";
}
