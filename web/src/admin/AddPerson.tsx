/**
 * Adding one person by hand (POST /api/v1/admin/people): for a company without SCIM, or someone
 * the identity system does not provision. The form stays filled when the server refuses, so a
 * taken address can be corrected rather than typed again.
 */
import { useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { Choice } from "./Choice";
import type { Person } from "./people-labels";

const ROLES = [
  ["employee", "Employee"],
  ["admin", "Admin"],
] as const;
/** The tutor's fallback language for a message too short to tell; any ISO 639-1 code is accepted, these have the tutor's fixed sentences. */
const LOCALES = [
  ["en", "English"],
  ["es", "Español"],
  ["fr", "Français"],
  ["de", "Deutsch"],
  ["pt", "Português"],
] as const;

interface Draft {
  email: string;
  name: string;
  department: string;
  role: (typeof ROLES)[number][0];
  locale: (typeof LOCALES)[number][0];
}
const EMPTY: Draft = { email: "", name: "", department: "", role: "employee", locale: "en" };

export function AddPerson({ onAdded }: { onAdded: (person: Person) => void }) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = (key: "email" | "name" | "department") => ({
    value: form[key],
    onInput: (e: Event) => setForm({ ...form, [key]: (e.target as HTMLInputElement).value }),
  });

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { person } = await api.post<{ person: Person }>("/api/v1/admin/people", { ...form, department: form.department || null });
      setForm(EMPTY);
      setOpen(false);
      onAdded(person);
    } catch (caught) {
      setError(describeApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  if (!open)
    return (
      <p>
        <button type="button" class="primary" onClick={() => setOpen(true)}>
          Add person
        </button>
      </p>
    );
  return (
    <form class="add-person" onSubmit={(e) => void submit(e)} aria-label="Add a person">
      <h2>Add a person</h2>
      <label>
        Email <input type="email" name="email" required maxLength={254} autoComplete="off" {...field("email")} />
      </label>
      <label>
        Name <input type="text" name="name" required maxLength={200} {...field("name")} />
      </label>
      <label>
        Department <input type="text" name="department" maxLength={120} {...field("department")} />
      </label>
      <Choice label="Role" name="role" value={form.role} options={ROLES} onChange={(role) => setForm({ ...form, role })} />
      <Choice label="Language" name="locale" value={form.locale} options={LOCALES} onChange={(locale) => setForm({ ...form, locale })} />
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      <div class="add-person-actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Adding…" : "Add"}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setOpen(false);
            setError(null);
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
