/**
 * One person on the people page: who they are, how they arrived, and the two changes an admin
 * makes from the list (the role, and whether the account is active). Both take a confirm step in
 * the row itself, saying what will happen, before anything is sent. Their data can be exported
 * or erased from here too (./PersonData.tsx); an erased person's placeholder has no actions.
 */
import { useState } from "preact/hooks";
import { Icon } from "../components/Icon";
import { ARRIVED_VIA, LAST_SIGN_IN_TITLE, lastSignIn, type Person } from "./people-labels";
import { PersonData } from "./PersonData";

type Pending = { kind: "role"; role: Person["role"] } | { kind: "active"; active: boolean };

export interface RowChange {
  role?: Person["role"];
  is_active?: boolean;
}

function question(person: Person, pending: Pending): string {
  if (pending.kind === "role")
    return pending.role === "admin" ? `Make ${person.name} an admin of the organisation?` : `Make ${person.name} an employee (no console access)?`;
  return pending.active
    ? `Reactivate ${person.name}? They can sign in again.`
    : `Deactivate ${person.name}? They are signed out everywhere and cannot sign in; their chats stay.`;
}

export interface RowHandlers {
  onChange: (change: RowChange) => Promise<boolean>;
  onErased: () => void;
  onError: (message: string | null) => void;
}

export function PersonRow({ person, isMe, onChange, onErased, onError }: { person: Person; isMe: boolean } & RowHandlers) {
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const via = ARRIVED_VIA[person.provisioned_via];

  const confirm = async (): Promise<void> => {
    if (!pending) return;
    setBusy(true);
    const done = await onChange(pending.kind === "role" ? { role: pending.role } : { is_active: pending.active });
    setBusy(false);
    if (done) setPending(null);
  };

  return (
    <tr class={`person${person.is_active ? "" : " inactive"}`} data-person-id={person.id} data-email={person.email}>
      <td data-label="Name">
        <span class="person-name">{person.name}</span>
        {isMe && <span class="hint"> (you)</span>}
        {person.job_title && <span class="hint person-title"> · {person.job_title}</span>}
      </td>
      <td data-label="Email" class="person-email">
        {person.email}
      </td>
      <td data-label="Role">
        <select
          aria-label={`Role of ${person.name}`}
          value={pending?.kind === "role" ? pending.role : person.role}
          disabled={isMe || busy || Boolean(person.erased_at)}
          title={isMe ? "Another admin can change your role" : undefined}
          onChange={(e) => {
            const role = (e.target as HTMLSelectElement).value === "admin" ? "admin" : "employee";
            setPending(role === person.role ? null : { kind: "role", role });
          }}
        >
          <option value="employee">Employee</option>
          <option value="admin">Admin</option>
        </select>
      </td>
      <td data-label="Department">{person.department ?? <span class="hint">—</span>}</td>
      <td data-label="Active" data-active={String(person.is_active)}>
        <Icon name={person.is_active ? "check" : "cross"} /> {person.is_active ? "Active" : "Deactivated"}
      </td>
      <td data-label="Arrived via">
        <span class={`badge arrived-via via-${person.provisioned_via}`} data-via={person.provisioned_via} title={via.title}>
          {via.label}
        </span>
      </td>
      <td data-label="Last sign-in" class="hint" title={LAST_SIGN_IN_TITLE}>
        {lastSignIn(person)}
      </td>
      <td data-label="" class="person-actions">
        {person.erased_at ? (
          <span class="badge person-erased" title={`Data erased ${new Date(person.erased_at).toLocaleString()}`}>
            Data erased
          </span>
        ) : pending ? (
          <div class="confirm-step" role="group" aria-label={`Confirm the change to ${person.name}`}>
            <span>{question(person, pending)}</span>{" "}
            <button type="button" class={pending.kind === "active" && !pending.active ? "danger" : "primary"} disabled={busy} onClick={() => void confirm()}>
              Confirm
            </button>{" "}
            <button type="button" disabled={busy} onClick={() => setPending(null)}>
              Cancel
            </button>
          </div>
        ) : (
          !isMe && (
            <>
              <button
                type="button"
                class={person.is_active ? "danger" : undefined}
                aria-label={`${person.is_active ? "Deactivate" : "Reactivate"} ${person.name}`}
                onClick={() => setPending({ kind: "active", active: !person.is_active })}
              >
                {person.is_active ? "Deactivate" : "Reactivate"}
              </button>{" "}
              <PersonData person={person} onErased={onErased} onError={onError} />
            </>
          )
        )}
      </td>
    </tr>
  );
}
