/**
 * One person on the people page: who they are, how they arrived, and the two changes an admin
 * makes from the list (the role, and whether the account is active). Both take a confirm step in
 * the row itself, saying what will happen, before anything is sent. Their data can be exported
 * or erased from here too (./PersonData.tsx); an erased person's placeholder has no actions.
 */
import { useState } from "preact/hooks";
import { Icon } from "../components/Icon";
import { formatMoment, t, useT } from "../lib/i18n";
import { ARRIVED_VIA, LAST_SIGN_IN_TITLE, lastSignIn, type Person } from "./people-labels";
import { PersonData } from "./PersonData";

type Pending = { kind: "role"; role: Person["role"] } | { kind: "active"; active: boolean };

export interface RowChange {
  role?: Person["role"];
  is_active?: boolean;
}

function question(person: Person, pending: Pending): string {
  if (pending.kind === "role") return t(pending.role === "admin" ? "person.makeAdmin" : "person.makeEmployee", { name: person.name });
  return t(pending.active ? "person.reactivateQuestion" : "person.deactivateQuestion", { name: person.name });
}

export interface RowHandlers {
  onChange: (change: RowChange) => Promise<boolean>;
  onErased: () => void;
  onError: (message: string | null) => void;
}

export function PersonRow({ person, isMe, onChange, onErased, onError }: { person: Person; isMe: boolean } & RowHandlers) {
  useT();
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
        {isMe && <span class="hint"> ({t("person.you")})</span>}
        {person.job_title && <span class="hint person-title"> · {person.job_title}</span>}
      </td>
      <td data-label="Email" class="person-email">
        {person.email}
      </td>
      <td data-label="Role">
        <select
          aria-label={t("person.roleOf", { name: person.name })}
          value={pending?.kind === "role" ? pending.role : person.role}
          disabled={isMe || busy || Boolean(person.erased_at)}
          title={isMe ? t("person.ownRole") : undefined}
          onChange={(e) => {
            const role = (e.target as HTMLSelectElement).value === "admin" ? "admin" : "employee";
            setPending(role === person.role ? null : { kind: "role", role });
          }}
        >
          <option value="employee">{t("common.employee")}</option>
          <option value="admin">{t("common.admin")}</option>
        </select>
      </td>
      <td data-label="Department">{person.department ?? <span class="hint">—</span>}</td>
      <td data-label="Active" data-active={String(person.is_active)}>
        <Icon name={person.is_active ? "check" : "cross"} /> {t(person.is_active ? "common.active" : "common.deactivated")}
      </td>
      <td data-label="Arrived via">
        <span class={`badge arrived-via via-${person.provisioned_via}`} data-via={person.provisioned_via} title={t(via.title)}>
          {t(via.label)}
        </span>
      </td>
      <td data-label="Last sign-in" class="hint" title={t(LAST_SIGN_IN_TITLE)}>
        {lastSignIn(person)}
      </td>
      <td data-label="" class="person-actions">
        {person.erased_at ? (
          <span class="badge person-erased" title={t("person.erasedAt", { when: formatMoment(person.erased_at) })}>
            {t("person.erased")}
          </span>
        ) : pending ? (
          <div class="confirm-step" role="group" aria-label={t("person.confirmChange", { name: person.name })}>
            <span>{question(person, pending)}</span>{" "}
            <button type="button" class={pending.kind === "active" && !pending.active ? "danger" : "primary"} disabled={busy} onClick={() => void confirm()}>
              {t("common.confirm")}
            </button>{" "}
            <button type="button" disabled={busy} onClick={() => setPending(null)}>
              {t("common.cancel")}
            </button>
          </div>
        ) : (
          !isMe && (
            <>
              <button
                type="button"
                class={person.is_active ? "danger" : undefined}
                aria-label={t(person.is_active ? "person.deactivateName" : "person.reactivateName", { name: person.name })}
                onClick={() => setPending({ kind: "active", active: !person.is_active })}
              >
                {t(person.is_active ? "person.deactivate" : "person.reactivate")}
              </button>{" "}
              <PersonData person={person} onErased={onErased} onError={onError} />
            </>
          )
        )}
      </td>
    </tr>
  );
}
