/**
 * Adding one person by hand (POST /api/v1/admin/people): for a company without SCIM, or someone
 * the identity system does not provision. The form stays filled when the server refuses, so a
 * taken address can be corrected rather than typed again.
 */
import { useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { useT } from "../lib/i18n";
import { LANGUAGE_AUTONYMS } from "../lib/i18n/language-choice";
import { Choice } from "./Choice";
import type { Person } from "./people-labels";

const ROLES = ["employee", "admin"] as const;
/** The tutor's fallback language for a message too short to tell; any ISO 639-1 code is accepted, these have the tutor's fixed sentences. */
const LOCALES = ["en", "es", "fr", "de", "pt", "it"] as const;

interface Draft {
  email: string;
  name: string;
  department: string;
  role: (typeof ROLES)[number];
  locale: (typeof LOCALES)[number];
}
const EMPTY: Draft = { email: "", name: "", department: "", role: "employee", locale: "en" };

export function AddPerson({ onAdded }: { onAdded: (person: Person) => void }) {
  const { t } = useT();
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
          {t("people.add.open")}
        </button>
      </p>
    );
  return (
    <form class="add-person" onSubmit={(e) => void submit(e)} aria-label={t("people.add.title")}>
      <h2>{t("people.add.title")}</h2>
      <label>
        {t("common.email")} <input type="email" name="email" required maxLength={254} autoComplete="off" {...field("email")} />
      </label>
      <label>
        {t("common.name")} <input type="text" name="name" required maxLength={200} {...field("name")} />
      </label>
      <label>
        {t("common.department")} <input type="text" name="department" maxLength={120} {...field("department")} />
      </label>
      <Choice
        label={t("common.role")}
        name="role"
        value={form.role}
        options={ROLES.map((role) => [role, t(role === "admin" ? "common.admin" : "common.employee")] as const)}
        onChange={(role) => setForm({ ...form, role })}
      />
      <Choice
        label={t("people.add.language")}
        name="locale"
        value={form.locale}
        options={LOCALES.map((locale) => [locale, LANGUAGE_AUTONYMS[locale]] as const)}
        onChange={(locale) => setForm({ ...form, locale })}
      />
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      <div class="add-person-actions">
        <button type="submit" class="primary" disabled={busy}>
          {t(busy ? "people.add.adding" : "people.add.submit")}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setOpen(false);
            setError(null);
          }}
        >
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}
